import { expect, test } from "./fixtures";
import { open } from "./helpers";

test("an uncaught error in a page fails the test it happens in", async ({ page }) => {
  test.fail(); // what is checked: the shared fixture fails this test after it ends
  await open(page, "/");
  const thrown = page.waitForEvent("pageerror");
  await page.evaluate(() => {
    setTimeout(() => {
      throw new Error("thrown on purpose by the test");
    });
  });
  expect((await thrown).message).toBe("thrown on purpose by the test");
});
