/**
 * The project's sandbox service over real HTTP and the real service client in front of it, as the
 * service tests, the bot kit and the core harness all set them up.
 *
 *   const kit = useSandboxClient({ sandbox: { enforceRateLimits: false } });   // one per file
 *   … kit.sandbox.account.balanceSun, kit.client().screening.create(…), kit.transport().send(…)
 *
 *   const kit = useSandboxClient({ lifetime: "test" });                         // one per test
 *   … const s = await kit.start({ now: () => AT }); kit.client({ apiKey: "nope" }).account …
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { DEFAULT_API_KEY, DEFAULT_REAL_IP } from "../../src/sandbox/accounts.js";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox/server.js";
import {
  createServiceClient,
  type ServiceClient,
  type ServiceClientOptions,
} from "../../src/service/client.js";
import { ServiceError } from "../../src/service/errors.js";
import {
  type CallSpec,
  createTransport,
  type RawReply,
  type Transport,
} from "../../src/service/transport.js";

/** Who calls and how: any field left undefined keeps the default. */
export type ClientOverrides = { [K in keyof ServiceClientOptions]?: ServiceClientOptions[K] | undefined };

/**
 * The client's options for `sandbox`: its default account key and allowed IP, one attempt per call
 * (each call makes a predictable number of requests) and retry waits capped at 250 ms (not below:
 * the transport's first retry waits at least 250 ms, and p-retry refuses a smaller cap).
 */
function sandboxClientOptions(sandbox: Sandbox, overrides: ClientOverrides = {}): ServiceClientOptions {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return {
    baseUrl: sandbox.url,
    apiKey: DEFAULT_API_KEY,
    realIp: DEFAULT_REAL_IP,
    maxAttempts: 1,
    maxRetryWaitMs: 250,
    ...given,
  };
}

export const sandboxClient = (sandbox: Sandbox, overrides: ClientOverrides = {}): ServiceClient =>
  createServiceClient(sandboxClientOptions(sandbox, overrides));

const sandboxTransport = (sandbox: Sandbox, overrides: ClientOverrides = {}): Transport =>
  createTransport(sandboxClientOptions(sandbox, overrides));

export interface SandboxClientOptions {
  /** The sandbox's options, or a function giving them when it starts (after earlier hooks ran). */
  sandbox?: SandboxOptions | (() => SandboxOptions);
  /** "file" (default): started before the file's first test, closed after its last; "test": `start()` in a test, closed after it. */
  lifetime?: "file" | "test";
}

type RawPost = Pick<CallSpec, "family" | "endpoint" | "path" | "body"> &
  Partial<Pick<CallSpec, "headers" | "auth">>;

export interface SandboxClientKit {
  /** The running sandbox; throws when none is. */
  readonly sandbox: Sandbox;
  /** Starts this test's sandbox (lifetime "test"): `options` merged over the kit's. */
  start(options?: SandboxOptions): Promise<Sandbox>;
  /** A client of the running sandbox. */
  client(overrides?: ClientOverrides): ServiceClient;
  /** A bare transport to the running sandbox, for requests the client would never send. */
  transport(overrides?: ClientOverrides): Transport;
  /** A POST the client would never send (an odd body, headers of the test's choosing), sent once: the service's own answer. */
  post(request: RawPost): Promise<RawReply>;
  close(): Promise<void>;
}

/** A sandbox with its client, started and closed by vitest hooks (see the top of this file). */
export function useSandboxClient(options: SandboxClientOptions = {}): SandboxClientKit {
  let running: Sandbox | undefined;
  const defaults = (): SandboxOptions =>
    typeof options.sandbox === "function" ? options.sandbox() : (options.sandbox ?? {});
  const current = (): Sandbox => {
    if (!running) throw new Error("no sandbox is running: start() it in the test (lifetime: test)");
    return running;
  };
  const kit: SandboxClientKit = {
    get sandbox() {
      return current();
    },
    async start(overrides = {}) {
      await kit.close();
      running = await createSandbox({ ...defaults(), ...overrides });
      return running;
    },
    client: (overrides) => sandboxClient(current(), overrides),
    transport: (overrides) => sandboxTransport(current(), overrides),
    post: (request) =>
      sandboxTransport(current()).send({
        method: "POST",
        headers: {},
        auth: "key+ip",
        timeoutMs: 5_000,
        buckets: [],
        resendable: false,
        ...request,
      }),
    async close() {
      const closing = running;
      running = undefined;
      await closing?.close();
    },
  };
  if (options.lifetime === "test") {
    afterEach(() => kit.close());
  } else {
    beforeAll(async () => {
      await kit.start();
    });
    afterAll(() => kit.close());
  }
  return kit;
}

/** The ServiceError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

/** The sandbox's energy orders delegating to `address`. */
export const energyOrdersTo = (sandbox: Sandbox, address: string) =>
  sandbox.energy.orders().filter((o) => o.receiveAddress === address);

/** The order webhooks the sandbox sent (or queued) about `address`. */
export const orderEventsFor = (sandbox: Sandbox, address: string) =>
  sandbox.outbound
    .history()
    .filter((r) => r.kind === "order")
    .map((r) => r.payload)
    .filter((p) => p.receive_address === address || p.address === address);
