import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { expect, Page, test } from "./fixtures";

// Signing in through an OpenID provider (issue 49): a real one (oidc-provider, started here from
// support/oidc_provider.mjs) and a Breakroom of this test's own that maps the provider's
// `breakroom-admins` group to admin and gives no one else access. The provider runs on 127.0.0.1
// and Breakroom on localhost, so the provider is another site, as it is in a deployment.

const root = path.resolve(__dirname, "..", "..");
const secret = "a-client-secret-for-the-tests";
const owner = "owner-token-for-the-oidc-tests";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `command args` and resolves with the first match of `ready` in its output. */
function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<[ChildProcess, string]> {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let seen = "";
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(ready);
      if (match) resolve([child, match[1]]);
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", (chunk) => (seen += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`${command} exited with ${code}: ${seen}`)));
  });
}

let provider: ChildProcess;
let breakroom: ChildProcess;
let url: string;
let issuer: string;
let providerName: string;

/** A provider and a Breakroom signing in through it; with `userinfoOnly`, the provider's ID
 * tokens carry no name and no groups, which Breakroom then reads from its userinfo endpoint. */
async function startPair(userinfoOnly: boolean) {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const [provider, issuer] = await startUntil(
    process.execPath,
    [path.join(__dirname, "..", "support", "oidc_provider.mjs")],
    {
      ...process.env,
      REDIRECT_URI: `${url}/login/oidc/callback`,
      POST_LOGOUT_URI: `${url}/login`,
      CLIENT_SECRET: secret,
      CONFORM_ID_TOKEN_CLAIMS: userinfoOnly ? "1" : "0",
    },
    /OpenID provider on (http:\/\/\S+)/,
  );
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "breakroom-oidc-"));
  const args = [
    "--port", String(port), "--data-dir", path.join(home, "data"), "--token", owner,
    "--oidc-issuer", issuer, "--oidc-client-id", "breakroom", "--oidc-role", "admin=breakroom-admins",
    "--oidc-scope", "groups",
  ];
  // The secret comes from the environment, as the book advises, not the command line.
  const env = { ...process.env, BREAKROOM_OIDC_CLIENT_SECRET: secret, CIDELDILL_HOME: home, LEPTOS_SITE_ROOT: path.join(root, "target", "site") };
  const [breakroom] = await startUntil(process.env.BREAKROOM_BINARY!, args, env, /(Server running on)/);
  return { provider, breakroom, url, issuer };
}

test.beforeAll(async () => {
  ({ provider, breakroom, url, issuer } = await startPair(false));
  providerName = new URL(issuer).hostname;
});

test.afterAll(() => {
  breakroom?.kill("SIGKILL");
  provider?.kill("SIGKILL");
});

/** The audit records of `actor`'s sign-ins, read with the owner's token. */
async function signIns(page: Page, actor: string) {
  const answer = await page.request.get(`${url}/api/audit?user=${encodeURIComponent(actor)}&action=sign%20in`, {
    headers: { Authorization: `Bearer ${owner}` },
  });
  expect(answer.status()).toBe(200);
  return (await answer.json()).records as { actor: string; role: string; outcome: string; status: number; door: string }[];
}

async function atTheProvider(page: Page, login: string, password: string) {
  await expect(page.getByRole("heading", { name: "Sign in to the test provider" })).toBeVisible();
  await page.getByLabel("Login").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in to the provider" }).click();
}

test("a member of the admin group signs in through the provider as an admin; sign-out ends both sessions", async ({ page }) => {
  await page.goto(`${url}/processes`);
  await expect(page).toHaveURL(/\/login\?next=%2Fprocesses$/);
  await page.getByRole("link", { name: `Sign in with ${providerName}` }).click();
  await atTheProvider(page, "ada", "ada-password");

  // Back at Breakroom, where she asked to go, signed in under the provider's name for her.
  await expect(page).toHaveURL(`${url}/processes`);
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await expect(page.locator(".signed-in .who")).toHaveText("ada.lovelace (admin)");
  await expect(page.locator("body")).toHaveClass(/\brole-admin\b/);
  const whoami = await page.request.get(`${url}/api/whoami`);
  expect(await whoami.json()).toMatchObject({ name: "ada.lovelace" });

  const records = await signIns(page, "ada.lovelace");
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ actor: "ada.lovelace", role: "admin", outcome: "done", door: "page" });
  await page.goto(`${url}/audit?user=ada.lovelace`);
  await expect(page.locator("table.audit tbody tr", { hasText: "sign in" })).toContainText("ada.lovelace (admin)");

  // Still signed in at the provider: signing in again goes straight through, without its form.
  await page.goto(`${url}/login/oidc?next=/audit`);
  await expect(page).toHaveURL(`${url}/audit`);
  await expect(page.locator(".signed-in .who")).toHaveText("ada.lovelace (admin)");
  expect(await signIns(page, "ada.lovelace")).toHaveLength(2);
  // A `next` that leaves the server (an open redirect) lands on its front page instead.
  await page.goto(`${url}/login/oidc?next=${encodeURIComponent("//127.0.0.1:9/elsewhere")}`);
  await expect(page).toHaveURL(`${url}/`);
  await expect(page.locator(".signed-in .who")).toHaveText("ada.lovelace (admin)");
  expect(await signIns(page, "ada.lovelace")).toHaveLength(3);

  // Sign-out ends Breakroom's sign-in and sends the browser to the provider to end its own.
  await page.getByRole("link", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign out of the test provider?" })).toBeVisible();
  expect((await page.request.get(`${url}/api/whoami`)).status()).toBe(401);
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await expect(page).toHaveURL(`${url}/login`);
  // The provider asks who she is again: its session ended too.
  await page.getByRole("link", { name: `Sign in with ${providerName}` }).click();
  await expect(page.getByRole("heading", { name: "Sign in to the test provider" })).toBeVisible();
});

test("a member of no mapped group is refused, nothing is open to them, and the audit names them", async ({ page }) => {
  await page.goto(`${url}/login`);
  await page.getByRole("link", { name: `Sign in with ${providerName}` }).click();
  await atTheProvider(page, "nemo", "nemo-password");

  await expect(page.getByRole("heading", { name: "No access" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("as nemo, but none of your groups gives you a role");
  expect((await page.request.get(`${url}/api/whoami`)).status()).toBe(401);
  expect((await page.request.get(`${url}/api/paused`)).status()).toBe(401);
  await page.goto(`${url}/`);
  await expect(page).toHaveURL(/\/login\?next=%2F$/);

  const records = await signIns(page, "nemo");
  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({ actor: "nemo", role: "none", outcome: "refused", status: 403 });
});

test("a callback with a state this server never gave is refused, and signs no one in", async ({ page }) => {
  const answer = await page.goto(`${url}/login/oidc/callback?code=stolen&state=forged`);
  expect(answer!.status()).toBe(400);
  await expect(page.getByRole("alert")).toContainText("not one this server started");
  expect((await page.request.get(`${url}/api/whoami`)).status()).toBe(401);
});

test("a provider that names people and their groups only at its userinfo endpoint signs them in all the same", async ({ page }) => {
  const pair = await startPair(true);
  try {
    await page.goto(`${pair.url}/login?next=/processes`);
    await page.getByRole("link", { name: `Sign in with ${providerName}` }).click();
    await atTheProvider(page, "ada", "ada-password");
    await expect(page).toHaveURL(`${pair.url}/processes`);
    await expect(page.locator(".signed-in .who")).toHaveText("ada.lovelace (admin)");
  } finally {
    pair.breakroom.kill("SIGKILL");
    pair.provider.kill("SIGKILL");
  }
});
