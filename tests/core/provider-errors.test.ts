/**
 * The provider kit (kit/provider/errors.ts) on the failures a provider meets: HTTP statuses with the
 * server's headers, a real refused connection (a port that was just closed) and a stream broken mid-answer.
 */
import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { ModelError } from "../../core/index.js";
import { modelConnectionError, modelHttpError, modelRequestError, type ModelEndpoint } from "../../kit/index.js";

const endpoint: ModelEndpoint = { name: "acme", baseURL: "https://api.acme.test/v1", keyHint: "ACME_API_KEY (or providers.acme.apiKey in your agent config)" };
const local: ModelEndpoint = { ...endpoint, baseURL: "http://127.0.0.1:1/v1" };

/** What fetch throws for a port nobody listens on: a TypeError whose cause is ECONNREFUSED. */
async function refusedFetchError(): Promise<unknown> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return fetch(`http://127.0.0.1:${port}/`).then(
    () => expect.fail("the closed port answered"),
    (err: unknown) => err,
  );
}

describe("modelHttpError", () => {
  const http = (status: number, over: object = {}) => modelHttpError(endpoint, { status, detail: "nope", model: "m1", ...over }, new Error("sdk"));

  test("names the endpoint, the status and where the key is set after a 401", () => {
    const e = http(401);
    expect(e).toBeInstanceOf(ModelError);
    expect(e.code).toBe("E_MODEL_AUTH");
    expect(e.message).toBe("acme (https://api.acme.test/v1) refused the API key (401: nope). Check ACME_API_KEY (or providers.acme.apiKey in your agent config).");
    expect(e.status).toBe(401);
    expect(e.provider).toBe("acme");
    expect(e.retryable).toBe(false);
  });

  test("a 404 names the model and ends with the provider's advice", () => {
    expect(http(404).message).toBe('acme (https://api.acme.test/v1) has no model "m1" (404: nope). Check the model name in --model acme:<model>.');
    expect(http(404, { notFoundAdvice: ", and that the base URL is right" }).message).toMatch(/--model acme:<model>, and that the base URL is right\.$/);
  });

  test("a 429 and a 503 are retried after the server's retry-after", () => {
    const limited = http(429, { headers: new Headers({ "retry-after": "7" }) });
    expect([limited.code, limited.retryable, limited.retryAfterMs]).toEqual(["E_MODEL_RATE_LIMIT", true, 7000]);
    const down = http(503, { headers: new Headers({ "retry-after-ms": "250" }) });
    expect([down.code, down.retryable, down.retryAfterMs, down.message]).toEqual(["E_MODEL_SERVER", true, 250, "acme (https://api.acme.test/v1) had a server error (503: nope)"]);
  });

  test("a 400 is a context-length refusal only when the vendor says so", () => {
    expect(http(400).code).toBe("E_MODEL_BAD_REQUEST");
    const long = http(400, { contextLengthExceeded: true });
    expect(long.code).toBe("E_MODEL_CONTEXT_LENGTH");
    expect(long.message).toBe("acme (https://api.acme.test/v1) refused the request as too long for the model's context window (400: nope)");
    // A 429 stays a rate limit whatever the vendor's wording.
    expect(http(429, { contextLengthExceeded: true }).code).toBe("E_MODEL_RATE_LIMIT");
  });
});

describe("modelConnectionError and modelRequestError", () => {
  test("a refused connection before the answer names the OS code and asks whether the local server runs", async () => {
    const err = await refusedFetchError();
    const e = modelConnectionError(local, err, { timedOut: false, connectionFailed: false, midStream: false });
    expect(e?.code).toBe("E_MODEL_NETWORK");
    expect(e?.message).toBe("Could not connect to acme (http://127.0.0.1:1/v1) (ECONNREFUSED). Is the server running?");
    expect(e?.cause).toBe(err);
  });

  test("the same network code mid-answer is a broken stream, with the cause chain", async () => {
    const err = await refusedFetchError();
    expect(modelConnectionError(endpoint, err, { timedOut: false, connectionFailed: false, midStream: true })).toBeUndefined();
    const e = modelRequestError(endpoint, err, { midStream: true, detail: "fetch failed" });
    expect(e.code).toBe("E_MODEL_STREAM");
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/^The connection to acme \(https:\/\/api\.acme\.test\/v1\) broke mid-answer \(fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\)\.$/);
  });

  test("the SDK's own timeout and connection classes decide without a network code", () => {
    const plain = new Error("socket hang up");
    expect(modelConnectionError(endpoint, plain, { timedOut: true, connectionFailed: false, midStream: true })?.message).toBe("acme (https://api.acme.test/v1) did not answer in time.");
    const failed = modelConnectionError(endpoint, plain, { timedOut: false, connectionFailed: true, midStream: true });
    expect([failed?.code, failed?.message]).toEqual(["E_MODEL_NETWORK", "Could not connect to acme (https://api.acme.test/v1). Check your network."]);
    expect(modelConnectionError(endpoint, plain, { timedOut: false, connectionFailed: false, midStream: false })).toBeUndefined();
    const other = modelRequestError(endpoint, plain, { midStream: false, detail: "socket hang up" });
    expect([other.code, other.retryable, other.message]).toEqual(["E_MODEL", false, "acme (https://api.acme.test/v1) request failed: socket hang up"]);
  });
});
