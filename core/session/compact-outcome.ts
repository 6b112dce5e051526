/** What a compaction did (`host.session.compact()`, the `/compact` command): below the compactor and the host types alike. */
export interface CompactOutcome {
  ok: boolean;
  /** Why nothing was compacted (blocked, nothing to summarise, the summary request failed). */
  reason?: string;
  blockedBy?: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages replaced by the summary. */
  summarized: number;
  /** Tool results shortened. */
  shortened: number;
  summary?: string;
}
