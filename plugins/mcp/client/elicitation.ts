/**
 * Answers to `elicitation/create` when nobody can be asked (headless; in a terminal the form is asked
 * field by field, elicitation-form.ts): a form is accepted with the defaults its schema declares, and
 * only when every required field has one; otherwise it is declined, and so is a URL request. The
 * server learns nothing it did not send itself. `"elicitation": "decline"` declines everything.
 */
type ElicitAnswer = { action: "accept"; content: Record<string, string | number | boolean | string[]> } | { action: "decline" };

interface RequestedSchema {
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
}

export function answerWithDefaults(params: { mode?: string; requestedSchema?: RequestedSchema }): ElicitAnswer {
  if (params.mode === "url" || !params.requestedSchema) return { action: "decline" };
  const props = params.requestedSchema.properties ?? {};
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [key, prop] of Object.entries(props)) {
    const d = prop?.default;
    if (typeof d === "string" || typeof d === "number" || typeof d === "boolean") content[key] = d;
    else if (Array.isArray(d) && d.every((x) => typeof x === "string")) content[key] = d as string[];
  }
  const missing = (params.requestedSchema.required ?? []).filter((k) => !(k in content));
  if (missing.length) return { action: "decline" };
  return { action: "accept", content };
}
