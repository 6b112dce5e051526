/** A promise bounded in time: what the host's plugin setups and hook handlers are held to. */

/** Settle as `value` does, or reject with `timeout()` once `ms` passed; the timer is cleared either way. */
export function withTimeout<T>(value: T | PromiseLike<T>, ms: number, timeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeout()), ms);
    Promise.resolve(value).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
