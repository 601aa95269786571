// A toolbox shaped like a large coding agent's menu: nine modes, ~100 tools with real argument schemas,
// cross-cutting tools in several modes. Handlers are stand-ins that echo their arguments.
// Shared by tests/visibility and bench/visibility.
#pragma once

#include <agentkit/agentkit.hpp>

#include <optional>
#include <string>
#include <vector>

namespace coding_agent {
namespace ak = agentkit;

struct path_args {
    std::string path;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(path_args, path, "Absolute or workspace-relative path", ak::min_length(1))); }
};
struct read_args {
    std::string path;
    std::optional<int> offset;
    std::optional<int> limit;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(read_args, path, "File to read", ak::min_length(1)),
                          AGENTKIT_FIELD(read_args, offset, "First line to return (1-based)", ak::minimum(1)),
                          AGENTKIT_FIELD(read_args, limit, "Maximum number of lines", ak::range(1, 5000)));
    }
};
struct edit_args {
    std::string path;
    std::string old_text;
    std::string new_text;
    bool replace_all = false;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(edit_args, path, "File to edit", ak::min_length(1)),
                          AGENTKIT_FIELD(edit_args, old_text, "Exact text to replace; must be unique unless replace_all"),
                          AGENTKIT_FIELD(edit_args, new_text, "Replacement text"),
                          AGENTKIT_FIELD(edit_args, replace_all, "Replace every occurrence", ak::default_value(false)));
    }
};
struct write_args {
    std::string path;
    std::string content;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(write_args, path, "File to create or overwrite", ak::min_length(1)),
                          AGENTKIT_FIELD(write_args, content, "The complete new file content"));
    }
};
struct command_args {
    std::string command;
    std::optional<int> timeout_ms;
    std::optional<std::string> cwd;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(command_args, command, "Shell command line", ak::min_length(1)),
                          AGENTKIT_FIELD(command_args, timeout_ms, "Kill the command after this many milliseconds", ak::range(100, 600000)),
                          AGENTKIT_FIELD(command_args, cwd, "Working directory"));
    }
};
struct shell_args {
    std::string shell_id;
    std::optional<std::string> input;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(shell_args, shell_id, "Id of a running shell", ak::min_length(1)),
                          AGENTKIT_FIELD(shell_args, input, "Text to write to the shell's stdin"));
    }
};
struct wait_args {
    int seconds = 1;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(wait_args, seconds, "Seconds to wait", ak::range(1, 600))); }
};
struct pattern_args {
    std::string pattern;
    std::optional<std::string> path;
    bool case_insensitive = false;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(pattern_args, pattern, "Regular expression or glob pattern", ak::min_length(1)),
                          AGENTKIT_FIELD(pattern_args, path, "Directory to search in"),
                          AGENTKIT_FIELD(pattern_args, case_insensitive, "Ignore case", ak::default_value(false)));
    }
};
struct lsp_args {
    std::string action;
    std::string path;
    int line = 1;
    int column = 1;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(lsp_args, action, "definition, references, hover or rename", ak::one_of("definition", "references", "hover", "rename")),
                          AGENTKIT_FIELD(lsp_args, path, "Source file"), AGENTKIT_FIELD(lsp_args, line, "Line (1-based)", ak::minimum(1)),
                          AGENTKIT_FIELD(lsp_args, column, "Column (1-based)", ak::minimum(1)));
    }
};
struct query_args {
    std::string query;
    std::optional<int> max_results;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(query_args, query, "What to search for", ak::min_length(1)),
                          AGENTKIT_FIELD(query_args, max_results, "Maximum number of results", ak::range(1, 50)));
    }
};
struct url_args {
    std::string url;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(url_args, url, "Absolute http(s) URL", ak::format("uri"))); }
};
struct fetch_args {
    std::string url;
    std::optional<int> max_chars;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(fetch_args, url, "Page to fetch", ak::format("uri")),
                          AGENTKIT_FIELD(fetch_args, max_chars, "Truncate the text to this many characters", ak::range(100, 200000)));
    }
};
struct question_args {
    std::string question;
    std::optional<std::string> context;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(question_args, question, "The question", ak::min_length(1)),
                          AGENTKIT_FIELD(question_args, context, "Relevant context (code, logs)"));
    }
};
struct todo_args {
    std::string title;
    std::optional<std::string> details;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(todo_args, title, "Short title of the task", ak::min_length(1)),
                          AGENTKIT_FIELD(todo_args, details, "Acceptance criteria"));
    }
};
struct id_args {
    std::string id;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(id_args, id, "Identifier", ak::min_length(1))); }
};
struct phase_args {
    std::optional<std::string> note;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(phase_args, note, "Why the phase changes")); }
};
struct commit_args {
    std::string message;
    bool all = false;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(commit_args, message, "Commit message", ak::min_length(1)),
                          AGENTKIT_FIELD(commit_args, all, "Stage modified tracked files first", ak::default_value(false)));
    }
};
struct paths_args {
    std::vector<std::string> paths;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(paths_args, paths, "Paths", ak::min_items(1))); }
};
struct ref_args {
    std::string ref;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(ref_args, ref, "Commit, branch or tag", ak::min_length(1))); }
};
struct log_args {
    std::optional<int> limit;
    std::optional<std::string> path;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(log_args, limit, "Number of commits", ak::range(1, 200)),
                          AGENTKIT_FIELD(log_args, path, "Only commits touching this path"));
    }
};
struct branch_args {
    std::string name;
    std::optional<std::string> from;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(branch_args, name, "New branch name", ak::min_length(1)),
                          AGENTKIT_FIELD(branch_args, from, "Start point (default: HEAD)"));
    }
};
struct pr_args {
    int number = 0;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(pr_args, number, "Pull request number", ak::minimum(1))); }
};
struct pr_create_args {
    std::string title;
    std::string body;
    std::string head;
    std::optional<std::string> base;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(pr_create_args, title, "Pull request title", ak::min_length(1)),
                          AGENTKIT_FIELD(pr_create_args, body, "Description in Markdown"),
                          AGENTKIT_FIELD(pr_create_args, head, "Branch with the changes"),
                          AGENTKIT_FIELD(pr_create_args, base, "Target branch (default: main)"));
    }
};
struct pr_text_args {
    int number = 0;
    std::string body;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(pr_text_args, number, "Pull request number", ak::minimum(1)),
                          AGENTKIT_FIELD(pr_text_args, body, "Text in Markdown", ak::min_length(1)));
    }
};
struct click_args {
    std::string ref;
    std::optional<std::string> button;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(click_args, ref, "Element ref from the latest snapshot", ak::min_length(1)),
                          AGENTKIT_FIELD(click_args, button, "Mouse button", ak::one_of("left", "right", "middle")));
    }
};
struct type_args {
    std::string ref;
    std::string text;
    bool submit = false;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(type_args, ref, "Element ref of the input"), AGENTKIT_FIELD(type_args, text, "Text to type"),
                          AGENTKIT_FIELD(type_args, submit, "Press Enter afterwards", ak::default_value(false)));
    }
};
struct scroll_args {
    std::string direction = "down";
    std::optional<int> amount;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(scroll_args, direction, "up or down", ak::one_of("up", "down")),
                          AGENTKIT_FIELD(scroll_args, amount, "Pixels to scroll", ak::range(1, 10000)));
    }
};
struct key_args {
    std::string key;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(key_args, key, "Key name such as Enter, Escape, ArrowDown")); }
};
struct point_args {
    int x = 0;
    int y = 0;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(point_args, x, "Viewport x in CSS pixels", ak::minimum(0)),
                          AGENTKIT_FIELD(point_args, y, "Viewport y in CSS pixels", ak::minimum(0)));
    }
};
struct select_args {
    std::string ref;
    std::vector<std::string> values;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(select_args, ref, "Element ref of the select"), AGENTKIT_FIELD(select_args, values, "Option values to select"));
    }
};
struct file_select_args {
    std::string ref;
    std::vector<std::string> files;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(file_select_args, ref, "Element ref of the file input"),
                          AGENTKIT_FIELD(file_select_args, files, "Local files to upload", ak::min_items(1)));
    }
};
struct mobile_args {
    bool enabled = true;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(mobile_args, enabled, "Emulate a phone viewport")); }
};
struct field_value {
    std::string ref;
    std::string value;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(field_value, ref, "Element ref"), AGENTKIT_FIELD(field_value, value, "Value to enter"));
    }
};
struct fill_form_args {
    std::vector<field_value> fields;
    std::optional<std::string> submit_ref;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(fill_form_args, fields, "Fields to fill", ak::min_items(1)),
                          AGENTKIT_FIELD(fill_form_args, submit_ref, "Button to click afterwards"));
    }
};
struct wait_for_args {
    std::string text;
    std::optional<int> timeout_ms;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(wait_for_args, text, "Text or element ref to wait for"),
                          AGENTKIT_FIELD(wait_for_args, timeout_ms, "Give up after this many milliseconds", ak::range(100, 60000)));
    }
};
struct visual_args {
    std::string image_ref;
    std::string expectation;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(visual_args, image_ref, "Screenshot artifact id"),
                          AGENTKIT_FIELD(visual_args, expectation, "What the screen should show"));
    }
};
struct move_args {
    std::string from;
    std::string to;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(move_args, from, "Source path"), AGENTKIT_FIELD(move_args, to, "Destination path"));
    }
};
struct data_query_args {
    std::string path;
    std::string query;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(data_query_args, path, "CSV or JSON file"),
                          AGENTKIT_FIELD(data_query_args, query, "SQL for CSV, JSONPath for JSON"));
    }
};
struct deploy_args {
    std::string service;
    std::string environment = "staging";
    std::optional<std::string> version;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(deploy_args, service, "Service to deploy"),
                          AGENTKIT_FIELD(deploy_args, environment, "Target environment", ak::one_of("staging", "production")),
                          AGENTKIT_FIELD(deploy_args, version, "Git ref or image tag (default: HEAD)"));
    }
};
struct env_args {
    std::string service;
    std::string key;
    std::string value;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(env_args, service, "Service"), AGENTKIT_FIELD(env_args, key, "Variable name"),
                          AGENTKIT_FIELD(env_args, value, "Variable value"));
    }
};
struct text_args {
    std::string text;
    std::optional<std::string> target_language;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(text_args, text, "Input text", ak::min_length(1)),
                          AGENTKIT_FIELD(text_args, target_language, "Language code such as de or ja"));
    }
};
struct mcp_args {
    std::string server;
    std::string tool;
    std::optional<std::string> arguments_json;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(mcp_args, server, "Configured MCP server name"), AGENTKIT_FIELD(mcp_args, tool, "Tool on that server"),
                          AGENTKIT_FIELD(mcp_args, arguments_json, "Arguments as a JSON object"));
    }
};

#define CODING_AGENT_TOOL(var, desc, Args, tr) \
    inline const auto var = ak::tool<#var>(desc, [](const Args&) { return std::string("ok: " #var); }, tr)

constexpr auto ro = ak::read_only | ak::parallel_safe;
constexpr auto rw = ak::no_traits;
constexpr auto dz = ak::destructive;
constexpr auto ow = ak::read_only | ak::open_world | ak::parallel_safe;

// swe core
CODING_AGENT_TOOL(Read, "Read a file from the workspace, optionally a line range.", read_args, ro);
CODING_AGENT_TOOL(Edit, "Replace exact text in a file.", edit_args, rw);
CODING_AGENT_TOOL(Write, "Create or overwrite a file with new content.", write_args, dz);
CODING_AGENT_TOOL(bash, "Run a shell command and return its output and exit code.", command_args, rw);
CODING_AGENT_TOOL(grep, "Search file contents with a regular expression.", pattern_args, ro);
CODING_AGENT_TOOL(glob, "Find files whose paths match a glob pattern.", pattern_args, ro);
CODING_AGENT_TOOL(lsp_tool, "Language server queries: go to definition, find references, hover, rename.", lsp_args, ro);
CODING_AGENT_TOOL(bash_output, "Read new output of a background shell.", shell_args, ro);
CODING_AGENT_TOOL(write_to_shell, "Write input to a background shell.", shell_args, rw);
CODING_AGENT_TOOL(kill_shell, "Stop a background shell.", shell_args, dz);
CODING_AGENT_TOOL(wait, "Wait a number of seconds for a background process.", wait_args, ro);
// git
CODING_AGENT_TOOL(git_status, "Show the working tree status.", ak::no_args, ro);
CODING_AGENT_TOOL(git_diff_unstaged, "Show unstaged changes.", ak::no_args, ro);
CODING_AGENT_TOOL(git_diff_staged, "Show staged changes.", ak::no_args, ro);
CODING_AGENT_TOOL(git_diff, "Show changes between two commits or branches.", ref_args, ro);
CODING_AGENT_TOOL(git_commit, "Record staged changes as a commit.", commit_args, rw);
CODING_AGENT_TOOL(git_add, "Stage files for the next commit.", paths_args, rw);
CODING_AGENT_TOOL(git_reset, "Unstage files.", paths_args, dz);
CODING_AGENT_TOOL(git_log, "Show the commit history.", log_args, ro);
CODING_AGENT_TOOL(git_create_branch, "Create a branch.", branch_args, rw);
CODING_AGENT_TOOL(git_checkout, "Switch to a branch or commit.", ref_args, rw);
CODING_AGENT_TOOL(git_show, "Show a commit with its diff.", ref_args, ro);
CODING_AGENT_TOOL(git_branch_list, "List local and remote branches.", ak::no_args, ro);
CODING_AGENT_TOOL(git_stash, "Stash uncommitted changes.", ak::no_args, rw);
CODING_AGENT_TOOL(git_merge, "Merge a branch into the current one.", ref_args, rw);
CODING_AGENT_TOOL(git_view_pr, "Show a pull request with its discussion.", pr_args, ow);
CODING_AGENT_TOOL(git_create_pr, "Open a pull request.", pr_create_args, ak::open_world);
CODING_AGENT_TOOL(git_update_pr_description, "Replace a pull request's description.", pr_text_args, ak::open_world);
CODING_AGENT_TOOL(git_pr_checks, "Show the CI checks of a pull request.", pr_args, ow);
CODING_AGENT_TOOL(git_ci_job_logs, "Fetch the log of a CI job.", id_args, ow);
CODING_AGENT_TOOL(git_comment_on_pr, "Comment on a pull request.", pr_text_args, ak::open_world);
CODING_AGENT_TOOL(list_repos, "List the repositories you can access.", ak::no_args, ow);
// research and AI
CODING_AGENT_TOOL(web_search, "Search the web and return titles, URLs and snippets.", query_args, ow);
CODING_AGENT_TOOL(web_get_contents, "Fetch a web page as readable text.", fetch_args, ow);
CODING_AGENT_TOOL(news_search, "Search recent news articles.", query_args, ow);
CODING_AGENT_TOOL(docs_lookup, "Look up official documentation of a library or API.", query_args, ow);
CODING_AGENT_TOOL(package_info, "Versions, licence and downloads of a package in npm, PyPI or crates.io.", query_args, ow);
CODING_AGENT_TOOL(ask_smart_friend, "Ask a stronger model for a second opinion.", question_args, ro);
CODING_AGENT_TOOL(librarian, "Answer a question from the uploaded document library.", question_args, ro);
CODING_AGENT_TOOL(librarian_search, "Search the uploaded documents (PDF, EPUB).", query_args, ro);
CODING_AGENT_TOOL(summarize_text, "Summarize a long text.", text_args, ro);
CODING_AGENT_TOOL(translate_text, "Translate text to another language.", text_args, ro);
CODING_AGENT_TOOL(TodoCreate, "Create a todo item.", todo_args, rw);
CODING_AGENT_TOOL(TodoRead, "List todo items and their states.", ak::no_args, ro);
CODING_AGENT_TOOL(TodoStart, "Mark a todo as started.", id_args, rw);
CODING_AGENT_TOOL(TodoClaim, "Claim a todo as done, with evidence.", id_args, rw);
CODING_AGENT_TOOL(TodoVerify, "Verify a claimed todo.", id_args, rw);
CODING_AGENT_TOOL(advance_phase, "Move to the next phase of the fix workflow.", phase_args, rw);
CODING_AGENT_TOOL(return_to_fix_phase, "Go back to the fix phase after a failed verification.", phase_args, rw);
CODING_AGENT_TOOL(analyze_test_failure, "Explain a failing test from its output.", question_args, ro);
CODING_AGENT_TOOL(get_phase_status, "Show the current workflow phase.", ak::no_args, ro);
// browser
CODING_AGENT_TOOL(browser_navigate, "Open a URL in the browser and return a snapshot.", url_args, ow);
CODING_AGENT_TOOL(browser_view, "Snapshot of the current page with element refs.", ak::no_args, ow);
CODING_AGENT_TOOL(browser_click, "Click an element by ref.", click_args, ak::open_world);
CODING_AGENT_TOOL(browser_type, "Type text into an input by ref.", type_args, ak::open_world);
CODING_AGENT_TOOL(browser_scroll, "Scroll the page.", scroll_args, ak::open_world);
CODING_AGENT_TOOL(browser_screenshot, "Take a screenshot of the page.", ak::no_args, ow);
CODING_AGENT_TOOL(browser_console, "Read the page's console messages.", ak::no_args, ow);
CODING_AGENT_TOOL(browser_press_key, "Press a keyboard key.", key_args, ak::open_world);
CODING_AGENT_TOOL(browser_move_mouse, "Move the mouse to a point.", point_args, ak::open_world);
CODING_AGENT_TOOL(browser_select_option, "Choose options in a select element.", select_args, ak::open_world);
CODING_AGENT_TOOL(browser_select_file, "Upload files through a file input.", file_select_args, ak::open_world);
CODING_AGENT_TOOL(browser_set_mobile, "Toggle phone viewport emulation.", mobile_args, ak::open_world);
CODING_AGENT_TOOL(browser_restart, "Restart the browser.", ak::no_args, dz);
CODING_AGENT_TOOL(browser_back, "Go back in history.", ak::no_args, ak::open_world);
CODING_AGENT_TOOL(browser_forward, "Go forward in history.", ak::no_args, ak::open_world);
CODING_AGENT_TOOL(browser_reload, "Reload the page.", ak::no_args, ak::open_world);
CODING_AGENT_TOOL(browser_wait_for, "Wait until a text or element appears.", wait_for_args, ow);
CODING_AGENT_TOOL(browser_fill_form, "Fill several form fields and optionally submit, in one call.", fill_form_args, ak::open_world);
CODING_AGENT_TOOL(browser_tabs, "List open tabs.", ak::no_args, ow);
CODING_AGENT_TOOL(recording_start, "Start recording the browser session as video.", ak::no_args, rw);
CODING_AGENT_TOOL(recording_stop, "Stop the recording and return the video artifact.", ak::no_args, rw);
CODING_AGENT_TOOL(visual_checker, "Check a screenshot against an expectation.", visual_args, ro);
// data
CODING_AGENT_TOOL(fs_read_file, "Read a document or data file.", path_args, ro);
CODING_AGENT_TOOL(fs_write_file, "Write a document or data file.", write_args, dz);
CODING_AGENT_TOOL(fs_list_directory, "List a directory.", path_args, ro);
CODING_AGENT_TOOL(fs_create_directory, "Create a directory.", path_args, rw);
CODING_AGENT_TOOL(fs_delete, "Delete a file or directory.", path_args, dz);
CODING_AGENT_TOOL(fs_move, "Move or rename a file.", move_args, dz);
CODING_AGENT_TOOL(fs_copy, "Copy a file.", move_args, rw);
CODING_AGENT_TOOL(fs_file_info, "Size, type and dates of a file.", path_args, ro);
CODING_AGENT_TOOL(csv_query, "Run SQL over a CSV file.", data_query_args, ro);
CODING_AGENT_TOOL(json_query, "Query a JSON file with JSONPath.", data_query_args, ro);
// deploy
CODING_AGENT_TOOL(deploy, "Deploy a service to an environment.", deploy_args, ak::open_world);
CODING_AGENT_TOOL(deploy_status, "Show the state of a service's latest deployment.", id_args, ow);
CODING_AGENT_TOOL(deploy_logs, "Fetch the logs of a deployment.", id_args, ow);
CODING_AGENT_TOOL(rollback, "Roll a service back to its previous release.", deploy_args, ak::destructive | ak::open_world);
CODING_AGENT_TOOL(set_env_var, "Set an environment variable of a service.", env_args, ak::open_world);
// integrations
CODING_AGENT_TOOL(mcp_tool, "Call a tool on a configured MCP server.", mcp_args, ak::open_world);
CODING_AGENT_TOOL(list_secrets, "List the names of available secrets.", ak::no_args, ro);
CODING_AGENT_TOOL(discover_tools, "List tools offered by the configured MCP servers.", ak::no_args, ow);

#undef CODING_AGENT_TOOL

inline const auto box = ak::toolbox{
    Read, Edit, Write, bash, grep, glob, lsp_tool, bash_output, write_to_shell, kill_shell, wait,
    git_status, git_diff_unstaged, git_diff_staged, git_diff, git_commit, git_add, git_reset, git_log,
    git_create_branch, git_checkout, git_show, git_branch_list, git_stash, git_merge, git_view_pr, git_create_pr,
    git_update_pr_description, git_pr_checks, git_ci_job_logs, git_comment_on_pr, list_repos,
    web_search, web_get_contents, news_search, docs_lookup, package_info, ask_smart_friend, librarian,
    librarian_search, summarize_text, translate_text, TodoCreate, TodoRead, TodoStart, TodoClaim, TodoVerify,
    advance_phase, return_to_fix_phase, analyze_test_failure, get_phase_status,
    browser_navigate, browser_view, browser_click, browser_type, browser_scroll, browser_screenshot,
    browser_console, browser_press_key, browser_move_mouse, browser_select_option, browser_select_file,
    browser_set_mobile, browser_restart, browser_back, browser_forward, browser_reload, browser_wait_for,
    browser_fill_form, browser_tabs, recording_start, recording_stop, visual_checker,
    fs_read_file, fs_write_file, fs_list_directory, fs_create_directory, fs_delete, fs_move, fs_copy,
    fs_file_info, csv_query, json_query, deploy, deploy_status, deploy_logs, rollback, set_env_var,
    mcp_tool, list_secrets, discover_tools};

using box_t = std::remove_cvref_t<decltype(box)>;

/// The nine modes (ordered primary, secondary, utility), with the
/// cross-cutting read-only browser tools in every mode.
inline auto make_menu(ak::menu_options o = {}) {
    return ak::menu_for<box_t>(
        ak::mode<"swe">(Read, Edit, Write, bash, grep, glob, lsp_tool, git_status, git_diff_unstaged, git_diff_staged,
                        git_commit, git_add, bash_output, write_to_shell, kill_shell, wait, web_search, web_get_contents,
                        ask_smart_friend, librarian, librarian_search, TodoCreate, TodoRead, TodoStart, TodoClaim,
                        TodoVerify, advance_phase, return_to_fix_phase, analyze_test_failure, get_phase_status)
            .describe("Software engineering: code editing, tests, commits")
            .when("Code changes, debugging, running tests, fixing bugs"),
        ak::mode<"library">(librarian, librarian_search, web_search, web_get_contents)
            .describe("The uploaded document library")
            .when("Questions about uploaded PDFs, EPUBs and documents"),
        ak::mode<"browser">(browser_navigate, browser_view, browser_click, browser_type, browser_scroll,
                            browser_screenshot, browser_console, browser_press_key, browser_move_mouse,
                            browser_select_option, browser_select_file, browser_set_mobile, browser_restart,
                            browser_back, browser_forward, browser_reload, browser_wait_for, browser_fill_form,
                            browser_tabs, recording_start, recording_stop, visual_checker)
            .describe("Browser automation")
            .when("Web browsing, clicking, forms, UI testing, screenshots"),
        ak::mode<"search">(web_search, web_get_contents, news_search, docs_lookup, package_info, browser_navigate,
                           browser_view, librarian, librarian_search, ask_smart_friend)
            .describe("Web research")
            .when("Web research, documentation lookup, news, package information"),
        ak::mode<"git">(git_status, git_diff_unstaged, git_diff_staged, git_diff, git_commit, git_add, git_reset, git_log,
                        git_create_branch, git_checkout, git_show, git_branch_list, git_stash, git_merge, git_view_pr,
                        git_create_pr, git_update_pr_description, git_pr_checks, git_ci_job_logs, git_comment_on_pr,
                        list_repos)
            .describe("Version control and pull requests")
            .when("Git operations, branches, pull requests, CI results"),
        ak::mode<"data">(fs_read_file, fs_write_file, fs_list_directory, fs_create_directory, fs_delete, fs_move,
                         fs_copy, fs_file_info, csv_query, json_query, grep, glob, bash)
            .describe("Non-code files and data")
            .when("Managing documents and data files, CSV and JSON queries"),
        ak::mode<"deploy">(deploy, deploy_status, deploy_logs, rollback, set_env_var, git_ci_job_logs, git_pr_checks,
                           bash, bash_output)
            .describe("Deployment and CI/CD")
            .when("Deploying, rolling back, deployment logs, environment variables"),
        ak::mode<"ai">(ask_smart_friend, visual_checker, summarize_text, translate_text, TodoCreate, TodoRead,
                       TodoStart, TodoClaim, TodoVerify, web_search, web_get_contents)
            .describe("AI assistance and task management")
            .when("Second opinions, summaries, translation, todo lists"),
        ak::mode<"integrations">(mcp_tool, list_secrets, discover_tools)
            .describe("External integrations")
            .when("External MCP servers, secrets, discovering more tools"),
        ak::in_every_mode(browser_navigate, browser_view), std::move(o));
}

}  // namespace coding_agent
