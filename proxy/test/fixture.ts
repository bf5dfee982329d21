/**
 * The set-up most proxy integration tests share: a fresh fake service per
 * test, and the proxy a test starts killed (and the service stopped) after it.
 */
import { afterEach, beforeEach } from "vitest";
import { FakeService } from "./fake-service.js";
import { ProxyProcess } from "./proxy-process.js";

export interface ServiceFixture {
  /** The current test's fake service. */
  readonly service: FakeService;
  /** Starts the CLI; the fixture kills it when the test ends. */
  spawn(args: string[], env: Record<string, string>): ProxyProcess;
}

export function useFakeService(): ServiceFixture {
  let service: FakeService | undefined;
  let proxy: ProxyProcess | undefined;
  beforeEach(async () => {
    service = await FakeService.start();
  });
  afterEach(async () => {
    proxy?.kill();
    proxy = undefined;
    await service?.stop();
  });
  return {
    get service() {
      if (!service) throw new Error("the fake service starts in beforeEach");
      return service;
    },
    spawn(args, env) {
      proxy = new ProxyProcess(args, env);
      return proxy;
    },
  };
}
