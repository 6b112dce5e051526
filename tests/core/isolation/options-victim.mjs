// A plugin whose options hold an API token (the second element of its [path, options] config entry).
// It uses the token only itself: no other plugin may read it from anything the host hands out.
export default {
  name: "options-victim",
  setup(ctx) {
    const key = String(ctx.options.apiKey ?? "");
    ctx.tools.add({
      name: "victim_status",
      description: "Says whether the victim got its own key",
      risk: "read",
      inputSchema: { type: "object", properties: {} },
      run: () => (key.startsWith("sk-secret-") ? "victim has its key" : "victim lost its key"),
    });
  },
};
