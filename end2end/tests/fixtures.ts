// What every browser test imports instead of "@playwright/test": the same API, and each test
// fails on an uncaught error in any page of its browser context (a panic in the wasm, a script
// error), which would otherwise pass unseen whenever the page still showed what was expected.
import { test as base, expect, type Page } from "@playwright/test";

export * from "@playwright/test";

export const test = base.extend<{ uncaughtPageErrors: void }>({
  uncaughtPageErrors: [
    async ({ context }, use) => {
      const errors: string[] = [];
      const watch = (page: Page) => page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
      context.pages().forEach(watch);
      context.on("page", watch);
      await use();
      expect(errors, "uncaught errors in the test's pages").toEqual([]);
    },
    { auto: true },
  ],
});
