// agentkit/browser/config_usage.hpp — agentkit-browser-mcp's --help text: every option the
// command line (browser/config.hpp) reads, what it does and its default, in one string.
#pragma once

namespace agentkit::browser {

/// The --help text of agentkit-browser-mcp.
inline constexpr const char* server_usage = R"(Usage: agentkit-browser-mcp [options]

An MCP server that gives a model a real browser (Chromium over CDP), over stdio or, with
--port, over Streamable HTTP.

Options (Playwright MCP names where the meaning is the same):
  --headless                 run the browser headless (the default)
  --headed                   show the browser window (needs a display)
  --executable-path PATH     browser binary (default: /usr/lib/chromium/chromium or $AGENTKIT_CHROMIUM)
  --isolated                 keep the profile in memory / a temporary directory (the default;
                             with --cdp-endpoint: a browser context of the server's own; with
                             --port: one browser process, a context of its own per session)
  --user-data-dir DIR        use (and keep) this profile directory; its sites' cookies and
                             localStorage are kept for the next browser on it
  --proxy-server PROXY       the browser's proxy (host:port, http://..., socks5://...); the
                             origin lists still decide every request before it leaves
  --proxy-bypass LIST        hosts that skip the proxy (comma-separated)
  --device NAME              emulate a device: its viewport, scale, touch and user agent
                             ("iPhone 15", "Pixel 7", "Desktop Chrome"; browser/devices.hpp)
  --mobile                   emulate a generic mobile device (Pixel 10)
  --init-script FILE         run this JavaScript in every page before its own (repeatable)
  --storage-state FILE       restore cookies and localStorage from FILE into the browser at its
                             start (Playwright's format; browser_storage_state writes one)
  --viewport-size W,H        viewport in CSS pixels, e.g. 1280,720
  --cdp-endpoint URL         connect to a running browser (ws://... or http://host:port) and
                             drive its default context: its cookies and open tabs (the first
                             is current); with --isolated, a context of the server's own
  --grant-permissions LIST   comma-separated permissions every page gets without a prompt
                             (clipboard-read, clipboard-write, geolocation, notifications,
                             camera, microphone, ...); config: browser.contextOptions.permissions
  --cdp-header "NAME: VALUE" a header on the connection to --cdp-endpoint (repeatable; e.g. a
                             hosted browser's Authorization); config file: browser.cdpHeaders
  --webdriver URL            a browser from a W3C WebDriver endpoint (Selenium Grid 4, Selenoid,
                             chromedriver: http://host:port[/wd/hub]); the session is created on
                             the first browser call and deleted when the browser closes
  --webdriver-capabilities JSON  capabilities merged into the session request (e.g.
                             '{"se:name":"agent 7","platformName":"linux"}')
  --config FILE              JSON configuration (Playwright MCP's format: browser.launchOptions,
                             browser.contextOptions.viewport, browser.cdpEndpoint, ...).
                             Playwright MCP's PLAYWRIGHT_MCP_* variables (PLAYWRIGHT_MCP_PORT,
                             _HEADLESS=true|false, _CONFIG, ...) count as options given after
                             the file and before the command line
  --allowed-origins LIST     semicolon-separated origins the browser may reach (enforced by
                             request interception in the browser: every request, popup, redirect)
  --blocked-origins LIST     semicolon-separated origins the browser may not reach
  --output-dir DIR           keep artifacts (screenshots, recordings, cut text) as files under DIR
  --secrets FILE             dotenv file of secrets: typed as {{secret:NAME}}, redacted from every output
                             (an empty value is ignored, with a note)
  --secret-origins NAME=LIST the origins (semicolon-separated) whose pages secret NAME may be typed
                             into; elsewhere typing it is refused (repeatable)
  --browser NAME             chromium (the default), chrome, chrome-beta/-dev/-canary, msedge,
                             msedge-beta/-dev/-canary: the channel's binary when no --executable-path
  --no-sandbox               pass --no-sandbox to the browser (as root it always is)
  --user-agent UA            the user agent of every tab (header and navigator.userAgent)
  --ignore-https-errors      accept invalid certificates (only in a browser this server launches)
  --timeout-action MS        bound of one browser call and of browser_wait_for without a timeout
                             (default 15000; a large page's accessibility tree is one call, so keep
                             it generous)
  --timeout-navigation MS    bound of a navigation to load (default 30000)
  --timeout-settle MS        an action is reported no sooner than this after its input (default 0;
                             500 with --output-mode playwright, as Playwright MCP waits); a dialog
                             it raises ends the wait
  --snapshot-mode MODE       incremental (default): a navigation's result shows the new page, what
                             it repeats of the site's last page (header, menus, footer) one line
                             each; full: every new page whole; none: its title and URL only
  --image-responses MODE     allow or only: screenshots inline too; omit: by artifact id (the default)
  --console-level LEVEL      browser_console_messages' default level: error, warning, info, debug
  --output-mode MODE         agentkit (terse results, the default) or playwright (Playwright MCP's
                             layout: sections, its aria snapshot and refs, generated code)
  --codegen LANG             with --output-mode playwright: typescript, python, java, csharp, none
  --test-id-attribute NAME   with --output-mode playwright: the attribute getByTestId() reads
  --snapshot-boxes           with --output-mode playwright: each element's box in snapshots
  --output-max-size BYTES    bytes of artifacts kept (as --max-artifact-bytes), and of files in
                             the output directory: the oldest go first (never a session log)
  --save-session             log every tool call, its arguments and its result to
                             session-<time>/session.md in the output directory (a folder per
                             MCP session; "Session: <folder>" on stderr)
  --allow-unrestricted-file-access  allow file:// URLs (as --allow-file-access)
  --port PORT                serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of
                             stdio (0: any free port; the URL is printed on stderr). Point a
                             client at it: { "url": "http://127.0.0.1:PORT/mcp" }. Every HTTP
                             session gets a browser of its own (its pages, refs and artifacts;
                             with --cdp-endpoint a browser context of its own): one client
                             never sees another's pages. Clients of the older HTTP+SSE
                             transport (2024-11-05) connect to http://HOST:PORT/sse
  --host HOST                the address to bind with --port (default 127.0.0.1; another
                             address exposes the browser to that network: set AGENTKIT_MCP_TOKEN
                             and --allowed-hosts)
  --allowed-hosts LIST       comma-separated host names accepted in the Host and Origin headers
                             besides the bound address and the loopback names ('*': any, which
                             turns off DNS-rebinding protection)
  --shared-browser-context   with --port: every session shares one browser (its pages and refs)
  --dashboard[=PORT]         serve the live view (the agent's screen, its steps, pause, resume,
                             step, take control) at http://127.0.0.1:PORT/?token=... (0 or no
                             PORT: any free port); the URL goes to stderr and to the
                             browser_dashboard tool, never to stdout. Loopback only
  --dashboard-host HOST      the dashboard's address: 127.0.0.1 (default), localhost or ::1;
                             any other is refused
  --idle-timeout MS          with --port: a session idle this long is closed, its browser with it
                             (default 1800000, 30 min; 0 is the default)
  --caps LIST                comma-separated capabilities: vision offers the coordinate tools
                             (browser_mouse_click_xy, _move_xy, _drag_xy, _down, _up, _wheel;
                             --vision too), testing the assertion tools (browser_verify_*,
                             browser_generate_locator), storage the cookie, localStorage,
                             sessionStorage and storage-state tools, network the routes
                             (browser_route, _route_list, browser_unroute) and
                             browser_network_state_set, pdf browser_pdf_save, config
                             browser_get_config, devtools browser_emulate_media, tracing
                             browser_start_tracing and browser_stop_tracing (a trace in
                             Playwright's format, in the output dir's traces/); the others are
                             always on
  Accepted with no effect here (a note on stderr says why): --no-webmcp,
  --file-paths, --cdp-timeout, --sandbox (not as root),
  and the --port options without --port.
  Refused (the server does not start rather than ignore them): --extension, --endpoint,
  --save-trace, --save-video,
  --init-page, --block-service-workers,
  --remote-header, --profile-dir-name, --browser firefox|webkit,
  --idle-timeout other than 0 without --port, and unknown --config keys. With --port and
  --user-data-dir, a session's browser takes the profile; another session's, while it is held,
  is refused with what to do (--isolated, or --shared-browser-context: one browser for all).
agentkit's switches for what is off by default:
  --allow-evaluate           enable browser_evaluate
  --allow-file-access        allow file:// URLs
  --downloads-dir DIR        allow downloads, saved under DIR with sanitized names
  --max-download-bytes N     cancel a download larger than N bytes (default 256 MiB; 0: no bound)
  --max-downloads N          downloads a session may start (default 50; 0: no bound)
  --uploads-dir DIR          allow browser_file_upload of files inside DIR (else uploads are off)
  --allow-uploads            allow browser_file_upload of files inside the MCP client's roots (the
                             working directory when it names none), as Playwright MCP does
  --allow-downloads          allow downloads, saved in the output directory (--output-dir; else
                             .playwright-mcp in the working directory), as Playwright MCP does
  --websockets MODE          how WebSockets meet the origin lists: auto (the default: through
                             agentkit's SOCKS5 gate, in the browser's network stack, when the
                             browser is local), proxy (always through the gate) or script (only
                             the page-script guard; for a browser that cannot reach 127.0.0.1)
  --policy FILE              browser policy as JSON (allowedOrigins, blockedOrigins, secrets, ...);
                             it joins the options given before it (lists add up)
  --max-artifacts N          artifacts kept per session (default 200; oldest evicted first)
  --max-artifact-bytes N     bytes kept per session (default 64 MiB)
  --tools SET                which tools the client sees (tools/list), one of:
                               all     every browser tool (the default)
                               core    a fixed set of the most used tools: browser_navigate,
                                       browser_navigate_back, browser_snapshot, browser_click,
                                       browser_type, browser_fill_form, browser_select_option,
                                       browser_press_key, browser_wait_for, browser_take_screenshot,
                                       browser_tabs, browser_interact, browser_artifact. The others
                                       are deferred: a call answers with a capability.unsupported
                                       result naming the reason and the alternative
                               menu    a menu: menu_list/menu_enter/menu_exit (and complete, think,
                                       message_user); menu_enter "browser" (page work) or
                                       "devtools" (tabs, console, network, uploads, recordings)
                                       makes that mode's tools appear (notifications/tools/list_changed)
                               router  tool_search finds tools by a plain-words query and makes the
                                       best matches appear (list_changed); browser_navigate and
                                       browser_snapshot are always listed
  --search BACKEND           the backend of web_search (no browser involved; without one, web_search
                             answers search.unconfigured):
                               searxng  SearXNG JSON API (self-hosted, no key; --search-url
                                        required, and json in search.formats of the instance)
                               brave    Brave Search API, key in BRAVE_API_KEY
                               tavily   Tavily, key in TAVILY_API_KEY
                               serper   Google results in the Serper format, key in SERPER_API_KEY
                             A key is read from the environment only and never printed. A search
                             is bounded by --timeout-action; an identical query within 2 minutes
                             is answered from a cache of 64 queries
  --search-url URL           the URL of the backend (searxng: the instance, e.g.
                             http://127.0.0.1:8888; the others: their public API unless given).
                             In --config: "search": {"backend": ..., "url": ...} (no keys)
  --inline-screenshots       return screenshots inline as well as by artifact id
  --max-sessions N           with --port: HTTP sessions at once (default 8; more are refused, 503)
  --quiet                    no per-call metrics on stderr
  --version, --help
Environment: AGENTKIT_MCP_TOKEN, with --port: every request must carry
  "Authorization: Bearer <token>" (401 otherwise). BRAVE_API_KEY, TAVILY_API_KEY,
  SERPER_API_KEY: the key of --search brave, tavily or serper. DEBUG naming pw:mcp:test
  (as Node's debug package reads it): Playwright MCP's lifecycle lines on stderr.
  PLAYWRIGHT_MCP_PING_TIMEOUT_MS, with --port: a client with a stream open that does not answer
  a ping within this many ms (default 5000; 0: never asked) has its session closed.
)";

}  // namespace agentkit::browser
