// Compiled by the consumer.single_include test with nothing but single_include/ on the
// include path (plus the system's nlohmann/json and tl/expected).
#define AGENTKIT_CONSUMER_KIND "single_include"
#define AGENTKIT_CONSUMER_SINGLE_HEADER
#include "../common/main.cpp"

#ifndef AGENTKIT_SINGLE_HEADER
#error "this must have been compiled against single_include/agentkit/agentkit.hpp"
#endif
