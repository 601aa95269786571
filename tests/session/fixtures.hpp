// Recorded responses in each provider's documented wire format (shapes from the Anthropic
// Messages, OpenAI Chat Completions and OpenAI Responses API references).
#pragma once

namespace fixtures {

// Anthropic Messages: prose + two parallel tool_use blocks, cache usage fields.
inline constexpr const char* anthropic_tool_use = R"json({
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "text", "text": "I'll look both up."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "lookup", "input": {"key": "alpha"}},
    {"type": "tool_use", "id": "toolu_01B7n2v3X8jKq1", "name": "lookup", "input": {"key": "beta"}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 512, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 4608, "output_tokens": 74,
            "service_tier": "standard"}
})json";

// Anthropic: a thinking block before the final answer (echoed back verbatim).
inline constexpr const char* anthropic_final = R"json({
  "id": "msg_02",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "thinking", "thinking": "The lookups are done.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
    {"type": "text", "text": "alpha is 1 and beta is 2."}
  ],
  "stop_reason": "end_turn",
  "stop_sequence": null,
  "usage": {"input_tokens": 40, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 4608, "output_tokens": 12}
})json";

inline constexpr const char* anthropic_rate_limit = R"json({
  "type": "error",
  "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}
})json";

inline constexpr const char* anthropic_overloaded = R"json({
  "type": "error",
  "error": {"type": "overloaded_error", "message": "Overloaded"}
})json";

inline constexpr const char* anthropic_max_tokens = R"json({
  "id": "msg_03", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
  "content": [{"type": "text", "text": "The answer is"}],
  "stop_reason": "max_tokens", "stop_sequence": null,
  "usage": {"input_tokens": 10, "output_tokens": 4}
})json";

// OpenAI Chat Completions: two parallel tool calls, the second with malformed arguments.
inline constexpr const char* chat_parallel = R"json({
  "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "gpt-4.1-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [
        {"id": "call_abc123", "type": "function", "function": {"name": "lookup", "arguments": "{\"key\":\"alpha\"}"}},
        {"id": "call_def456", "type": "function", "function": {"name": "lookup", "arguments": "{\"key\": \"be"}}
      ],
      "refusal": null,
      "annotations": []
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {
    "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default"
})json";

inline constexpr const char* chat_final = R"json({
  "id": "chatcmpl-2", "object": "chat.completion", "created": 1741569953, "model": "gpt-4.1-2025-04-14",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "alpha is 1.", "refusal": null, "annotations": []},
               "logprobs": null, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 2100, "completion_tokens": 5, "total_tokens": 2105,
            "prompt_tokens_details": {"cached_tokens": 2048}}
})json";

// OpenAI HTTP 429 body.
inline constexpr const char* openai_rate_limit = R"json({
  "error": {
    "message": "Rate limit reached for gpt-4.1 in organization org-xyz on tokens per min (TPM): Limit 30000, Used 29800, Requested 1200.",
    "type": "tokens",
    "param": null,
    "code": "rate_limit_exceeded"
  }
})json";

// OpenAI Responses: a reasoning item, prose, and two function calls.
inline constexpr const char* responses_calls = R"json({
  "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  "object": "response",
  "created_at": 1741476542,
  "status": "completed",
  "error": null,
  "incomplete_details": null,
  "model": "gpt-5-2025-08-07",
  "output": [
    {"type": "reasoning", "id": "rs_6890e972fa7c819ca8bc561526b989170694874912ae0ea6", "summary": []},
    {"type": "message", "id": "msg_67ccd2bf17f0819081ff3bb2cf6508e6", "status": "completed", "role": "assistant",
     "content": [{"type": "output_text", "text": "Checking both.", "annotations": []}]},
    {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz", "name": "lookup",
     "arguments": "{\"key\":\"alpha\"}", "status": "completed"},
    {"type": "function_call", "id": "fc_67890abc", "call_id": "call_67890abc", "name": "lookup",
     "arguments": "{\"key\":\"beta\"}", "status": "completed"}
  ],
  "parallel_tool_calls": true,
  "usage": {
    "input_tokens": 3072, "input_tokens_details": {"cached_tokens": 2944},
    "output_tokens": 120, "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 3192
  }
})json";

inline constexpr const char* responses_incomplete = R"json({
  "id": "resp_2", "object": "response", "status": "incomplete", "error": null,
  "incomplete_details": {"reason": "max_output_tokens"}, "model": "gpt-5-2025-08-07",
  "output": [{"type": "message", "id": "msg_2", "status": "incomplete", "role": "assistant",
              "content": [{"type": "output_text", "text": "Partial", "annotations": []}]}],
  "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 16,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 26}
})json";

inline constexpr const char* responses_failed = R"json({
  "id": "resp_3", "object": "response", "status": "failed",
  "error": {"code": "server_error", "message": "The model failed to generate a response."},
  "output": [], "usage": null
})json";

}  // namespace fixtures
