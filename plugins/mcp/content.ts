/**
 * MCP results as text for the model: text joined, binary content summarized (type, MIME type, size)
 * instead of dumped as base64, `structuredContent` kept beside the text.
 */
import type { ToolReturn } from "../../core/index.js";
import type { CallToolResult, ContentBlock, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Decoded size of base64 data, without decoding it. */
export function base64Size(data: string): number {
  const len = data.replace(/\s/g, "").length;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((len * 3) / 4) - padding);
}

type ResourceContents = { uri: string; mimeType?: string; text?: string; blob?: string };

function describeResource(r: ResourceContents, readHint?: string): string {
  const mime = r.mimeType ?? "unknown type";
  const size = typeof r.text === "string" ? `${formatBytes(Buffer.byteLength(r.text))} of text` : `${formatBytes(base64Size(r.blob ?? ""))}`;
  return `[resource ${r.uri} (${mime}, ${size})${readHint ? `; read it with ${readHint}` : ""}]`;
}

/** One content block as text. `readHint` names the tool that reads resources, when the server has one. */
export function contentToText(block: ContentBlock, readHint?: string): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} (${block.mimeType}, ${formatBytes(base64Size(block.data))})]`;
    case "resource":
      return describeResource(block.resource as ResourceContents, readHint);
    case "resource_link":
      return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.mimeType ? ` (${block.mimeType})` : ""}]`;
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

export function toolResultToReturn(result: CallToolResult, readHint?: string): ToolReturn {
  const blocks = Array.isArray(result.content) ? result.content : [];
  // One block (the usual answer) needs no array and join.
  let output = blocks.length === 1 ? contentToText(blocks[0], readHint) : blocks.map((b) => contentToText(b, readHint)).join("\n");
  const structured = result.structuredContent;
  if (output === "" && structured !== undefined) output = JSON.stringify(structured, null, 2);
  // Servers on the 2024-10-07 protocol answer with `toolResult` instead of `content`.
  const legacy = (result as { toolResult?: unknown }).toolResult;
  if (output === "" && legacy !== undefined) output = typeof legacy === "string" ? legacy : JSON.stringify(legacy, null, 2);
  const isError = result.isError === true;
  if (isError && output === "") output = "The tool reported an error without a message.";
  const out: ToolReturn = { output };
  if (isError) out.isError = true;
  if (structured !== undefined) out.structured = structured;
  return out;
}

/** A prompt's messages as one user message. Roles are kept visible when the prompt has more than the user's. */
export function promptToText(result: GetPromptResult): string {
  const messages = result.messages ?? [];
  const onlyUser = messages.every((m) => m.role === "user");
  return messages
    .map((m) => {
      const text = contentToText(m.content as ContentBlock);
      return onlyUser ? text : `[${m.role}]\n${text}`;
    })
    .join("\n\n");
}

export function resourceContentsToText(result: ReadResourceResult): string {
  return (result.contents ?? [])
    .map((c) => {
      const r = c as ResourceContents;
      return typeof r.text === "string" ? r.text : `[binary resource ${r.uri} (${r.mimeType ?? "unknown type"}, ${formatBytes(base64Size(r.blob ?? ""))})]`;
    })
    .join("\n");
}
