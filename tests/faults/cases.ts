/**
 * How each fixture of the fault catalog is run, and what the user must get. `fixture` is the path under
 * tests/fixtures (a folder in configs/ is copied into the project; a plugin is put in `plugins`; an MCP
 * server is server `s` in `.mcp.json`). `code` is the exit code (README's table); `says` what the
 * output must contain: the problem, named.
 */
import { fileURLToPath } from "node:url";

export interface Fault {
  fixture: string;
  run: string[];
  code: number;
  says: RegExp | RegExp[];
  /** plugins/: the plugin's options, other plugin fixtures loaded with it, config beside `plugins`. */
  options?: Record<string, unknown>;
  extraPlugins?: string[];
  /** Project config (.agentrc.json); for plugins/ merged with the `plugins` list. */
  config?: Record<string, unknown>;
  /** mcp/: arguments for the server, extra fields of its entry, or the path on which an HTTP fixture serves MCP. */
  args?: string[];
  server?: Record<string, unknown>;
  http?: string;
  env?: Record<string, string>;
  /** Files (relative to the project) that must not exist afterwards: what the attack would have made. */
  absent?: string[];
}

const bypass = { permissions: { mode: "bypass" } };
const FIXTURES_DIR = fileURLToPath(new URL("../fixtures", import.meta.url));

const CONFIG_FAULTS: Fault[] = [
  { fixture: "configs/bad-plugin-entry", run: ["doctor"], code: 2, says: /\.agentrc\.json:\n\s+plugins\[0\]: expected a plugin/ },
  { fixture: "configs/bad-plugin-options", run: ["tools"], code: 2, says: /plugins\[.*plugin\.mjs\] options\.level: expected a number/ },
  { fixture: "configs/bom-json", run: ["config", "--json"], code: 0, says: /"maxTurns": 3/ },
  {
    fixture: "configs/loosening-config-hook",
    run: ["call", "run_command", '{"command":"echo hi"}'],
    code: 3,
    says: [/Plugin loosen tried to change permissions\.mode, permissions\.allow, workspace, audit in its config hook/, /Permission denied: run_command\(echo hi\)/],
  },
  { fixture: "configs/malformed-deny-rule", run: ["tools"], code: 2, says: /permissions\.deny\[0\]: invalid rule "run_command\(rm:\*\)\)": unbalanced parentheses/ },
  { fixture: "configs/mcp-json-broken", run: ["tools"], code: 2, says: /\.mcp\.json:\n.*line 1, column \d+/ },
  {
    fixture: "configs/mcp-server-not-object",
    run: ["doctor"],
    code: 1,
    says: [/mcpServers\.notes: expected an object .* got the string "node notes\.js"/, /mcpServers\.nulled: .* got null/],
  },
  {
    fixture: "configs/deep-mcp-server",
    env: { FIXTURES: FIXTURES_DIR },
    config: bypass,
    run: ["call", "mcp__good__search", '{"query":"x"}'],
    code: 0,
    says: [/MCP server bad is misconfigured: mcpServers\.bad\.args\[0\]\[0\].*: nested more than 64 levels deep/, /G:search:\{"query":"x"\}/],
  },
  { fixture: "configs/misspelled-key", run: ["doctor"], code: 2, says: /modle: unknown key; did you mean "model"\?/ },
  { fixture: "configs/numbers-in-args", run: ["doctor"], code: 1, says: /mcpServers\.n\.args\[2\]: expected a string, got the number 3000/ },
  {
    fixture: "configs/rule-naming-no-tool",
    run: ["doctor"],
    code: 0,
    says: [/"bash\(rm:\*\)"[^\n]* names no registered tool, so it denies nothing; did you mean "run_command\(rm:\*\)"\?/, /"WebFetch\(domain:example\.com\)"[^\n]* names no registered tool/],
  },
  { fixture: "configs/trailing-comma", run: ["doctor"], code: 2, says: /\.agentrc\.json:\n.*line 3, column 1/ },
];

const PLUGIN_FAULTS: Fault[] = [
  {
    fixture: "plugins/cli-command.mjs",
    run: ["hello", "--name", "you"],
    code: 0,
    says: [/plugin clitool's command "tools" was ignored: a built-in command has that name/, /hello you \(9 tools, mode default, can set mode: false\)/],
  },
  {
    fixture: "plugins/flip-mode.mjs",
    run: ["call", "run_command", '{"command":"echo hi"}'],
    code: 3,
    says: [/Plugin flip-mode tried to change permissions\.mode, permissions\.allow, tools\.overrides\.run_command\.risk/, /needs approval and there is no terminal to ask/],
  },
  {
    fixture: "plugins/hang.mjs",
    options: { setup: true },
    config: { pluginTimeouts: { startupMs: 300 } },
    run: ["call", "read_file", '{"path":"package.json"}'],
    code: 0,
    says: [/Plugin hang failed in setup: setup did not settle within 300 ms/, /temp-project/],
  },
  {
    fixture: "plugins/inflate.mjs",
    config: { tools: { overrides: { read_file: { maxOutputBytes: 100 } } } },
    run: ["call", "read_file", '{"path":"package.json"}', "--json"],
    code: 0,
    says: /output truncated: \d+ of 3145728 bytes cut; the first 100 bytes are shown/,
  },
  { fixture: "plugins/keep-alive.mjs", run: ["tools"], code: 0, says: [/plugin keep-alive left an error nobody handled: stray rejection from keep-alive/, /read_file/] },
  {
    fixture: "plugins/mutate-input.mjs",
    config: bypass,
    run: ["call", "run_command", '{"command":"echo untouched"}'],
    code: 0,
    says: /untouched/,
    absent: ["pwned-before", "pwned-later"],
  },
  {
    fixture: "plugins/neuter-policy.mjs",
    extraPlugins: ["plugins/policy.mjs"],
    config: bypass,
    run: ["call", "run_command", '{"command":"rm -f x"}'],
    code: 3,
    says: /Denied by a plugin: policy: no rm/,
  },
  { fixture: "plugins/policy.mjs", config: bypass, run: ["call", "run_command", '{"command":"rm -rf build"}'], code: 3, says: /Denied by a plugin: policy: no rm/ },
  {
    fixture: "plugins/throwing.mjs",
    config: bypass,
    run: ["call", "run_command", '{"command":"echo hi #mode=throw"}'],
    code: 3,
    says: [/plugin throwing failed in beforeToolCall \(before boom\); the call was blocked to be safe/, /Plugin throwing failed in event: event boom/],
  },
];


const call = (tool: string, args: object = {}) => ["call", `mcp__s__${tool}`, JSON.stringify(args)];

const MCP_FAULTS: Fault[] = [
  { fixture: "mcp/bad-schemas.mjs", config: bypass, run: call("good", { q: "x" }), code: 0, says: [/tool "dangling_ref" skipped: its inputSchema has a \$ref to "#\/\$defs\/missing"/, /good \{"q":"x"\}/] },
  { fixture: "mcp/big-output.mjs", config: { ...bypass, tools: { maxOutputBytes: 1000 } }, run: call("big"), code: 0, says: /output truncated: \d+ of 5242880 bytes cut/ },
  { fixture: "mcp/client-features.mjs", config: bypass, run: call("ask_model"), code: 1, says: /the user declined MCP server s's sampling request \(with no terminal to ask, set "sampling": "allow"/ },
  { fixture: "mcp/crash-mid-call.mjs", config: bypass, run: call("crash"), code: 1, says: /MCP server s disconnected during the call: the server process exited with code 1 \(stderr: crash-mid-call: crashing now\)/ },
  { fixture: "mcp/deep-frames.mjs", config: bypass, run: call("poison"), code: 0, says: /^ok$/m },
  { fixture: "mcp/deep-http.mjs", http: "/mcp", config: bypass, run: call("poison_sse"), code: 0, says: /^ok$/m },
  { fixture: "mcp/die-at-start.mjs", config: bypass, run: call("anything"), code: 1, says: /the MCP server 's' failed to start: the server process exited with code 1 before answering initialize: Error: DATABASE_URL is not set/ },
  { fixture: "mcp/echo-env.mjs", server: { env: { SOME_NAME: "s3cr3t-value-123" } }, run: ["mcp", "get", "s"], code: 0, says: /server:\s+echo-env \[REDACTED:mcpServers\.s\.env\.SOME_NAME\]/ },
  { fixture: "mcp/error-result.mjs", config: bypass, run: call("throws"), code: 1, says: /the server answered with error -32603: kaboom/ },
  { fixture: "mcp/exit-immediately.mjs", run: ["tools"], code: 0, says: /MCP server s failed to connect: the server process exited with code 3 before answering initialize: fatal: boom/ },
  { fixture: "mcp/exit-on-probe.mjs", config: bypass, run: call("hello"), code: 0, says: /^hello from a 2025 server$/m },
  { fixture: "mcp/schemas-2020.mjs", config: bypass, run: call("weather", { mode: "bad" }), code: 1, says: /does not match its outputSchema: structuredContent\.temperature: must be number/ },
  { fixture: "mcp/fuzz-frames.mjs", args: ["--seed", "7"], config: bypass, run: call("echo", { text: "through the noise" }), code: 0, says: /^through the noise$/m },
  { fixture: "mcp/garbage-before-handshake.mjs", config: bypass, run: call("ping"), code: 0, says: /^pong$/m },
  { fixture: "mcp/grandchild.mjs", config: { ...bypass, tools: { timeoutMs: 300 } }, run: call("spawn_and_hang"), code: 1, says: /timed out after 300 ms and was cancelled/ },
  { fixture: "mcp/hang-on-initialize.mjs", server: { connectTimeout: 3000 }, run: ["tools"], code: 0, says: /MCP server s failed to connect: timed out after 3000 ms waiting for the server to answer server\/discover or initialize/ },
  { fixture: "mcp/http-status.mjs", http: "/mcp", args: ["--status", "500"], run: ["tools"], code: 0, says: /MCP server s failed to connect: HTTP 500/ },
  { fixture: "mcp/ignore-eof.mjs", server: { connectTimeout: 1500 }, run: ["tools"], code: 0, says: /MCP server s failed to connect: timed out after 1500 ms/ },
  // The garbage is named only if the server wrote some before the connect timeout ends the attempt: the
  // default 30 s, not 3 s that the server/discover probe alone used up and a node start on a loaded machine
  // outlasted (it answers nothing valid, so this case always takes the whole timeout, beside the others).
  // Its answers to the probe and to initialize: one line or two.
  { fixture: "mcp/invalid-json.mjs", run: ["tools"], code: 0, says: /to stdout that (is|are) not JSON-RPC/ },
  { fixture: "mcp/jsonrpc-errors.mjs", config: bypass, run: call("fail", { code: -32000, message: "tool threw" }), code: 1, says: /the server answered with error -32000: tool threw/ },
  { fixture: "mcp/list-changed.mjs", config: bypass, run: call("add_tool"), code: 0, says: /added second/ },
  {
    fixture: "mcp/lying-annotations.mjs",
    server: { env: { RAN_FILE: "ran" } },
    run: call("delete_everything"),
    code: 3,
    says: /Permission denied: mcp__s__delete_everything \(risk: execute\) needs approval/,
    absent: ["ran"],
  },
  { fixture: "mcp/many-tools.mjs", run: ["tools"], code: 0, says: [/mcp__s__tool_296/, /mcp__s__name_with_dots/] },
  { fixture: "mcp/records-cancel.mjs", config: { ...bypass, tools: { timeoutMs: 300 } }, run: call("wait"), code: 1, says: /timed out after 300 ms and was cancelled/ },
  { fixture: "mcp/same-names.mjs", args: ["--label", "A"], config: bypass, run: call("search", { query: "q" }), code: 0, says: /A:search:\{"query":"q"\}/ },
  {
    fixture: "mcp/skills-server.mjs",
    args: ["--broken"],
    config: bypass,
    run: ["call", "skill", JSON.stringify({ name: "s-broken" })],
    code: 1,
    says: /Skill "s-broken" could not be loaded: MCP server s: skill s-broken \(skill:\/\/broken\/SKILL\.md\) was not loaded: its SKILL\.md is not valid: name "not-broken" differs from the name its address gives, "broken"/,
  },
  { fixture: "mcp/slow-start.mjs", server: { env: { SLOW_START_MS: "300", TOOLS: "echo,late" } }, config: bypass, run: call("late", { text: "worth the wait" }), code: 0, says: /^late:worth the wait$/m },
  { fixture: "mcp/slow-tool.mjs", config: { ...bypass, tools: { timeoutMs: 200 } }, run: call("slow", { ms: 5000 }), code: 1, says: /timed out after 200 ms and was cancelled/ },
  { fixture: "mcp/sse-only.mjs", http: "/sse", config: bypass, run: call("echo", { text: "over sse" }), code: 0, says: /^over sse$/m },
  { fixture: "mcp/stderr-flood.mjs", config: bypass, run: call("flood", { mb: 2 }), code: 0, says: /^flooded \d+$/m },
  { fixture: "mcp/stray-frames.mjs", config: bypass, run: call("strays"), code: 0, says: /^ok$/m },
];

export const FAULTS: Fault[] = [...CONFIG_FAULTS, ...PLUGIN_FAULTS, ...MCP_FAULTS];
