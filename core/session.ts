/** The conversation a host keeps between runs; the loop updates it. */
import type { AgentSession } from "./host-types.js";

export function createSession(id: string, configModel: () => string | undefined, onClear: () => void = () => {}): AgentSession {
  let chosenModel: string | undefined;
  const session: AgentSession = {
    id,
    get model() {
      return chosenModel ?? (process.env.AGENT_MODEL || undefined) ?? configModel();
    },
    set model(ref: string | undefined) {
      chosenModel = ref;
    },
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    running: false,
    clear() {
      session.messages.length = 0;
      onClear();
    },
  };
  return session;
}
