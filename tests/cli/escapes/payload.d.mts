/** Every escape attempt: [what it is, the bytes]. */
export const ATTEMPTS: [string, string][];
/** The attempts joined by spaces: what the hostile server and hook put in every string. */
export const ESC_PAYLOAD: string;
