// A real OpenID provider for the browser tests (issue 49): `oidc-provider`, the certified Node
// implementation, with one client (Breakroom) and two people. Its sign-in and sign-out pages are
// plain server-rendered forms written here: oidc-provider's own development pages load web fonts
// from the internet, which the tests must not reach.
//
//   node oidc_provider.mjs
// Environment: REDIRECT_URI (Breakroom's callback), POST_LOGOUT_URI (its /login), CLIENT_SECRET,
// CONFORM_ID_TOKEN_CLAIMS.
// Prints "OpenID provider on http://127.0.0.1:PORT" once it listens.
import * as http from "node:http";
import Provider from "oidc-provider";

const accounts = {
  ada: { password: "ada-password", claims: { preferred_username: "ada.lovelace", email: "ada@example.org", groups: ["breakroom-admins", "staff"] } },
  nemo: { password: "nemo-password", claims: { preferred_username: "nemo", email: "nemo@example.org", groups: [] } },
};

const escape = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const page = (title, body) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
  `<body><h1>${escape(title)}</h1>${body}</body></html>`;

function readForm(req) {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
      if (body.length > 10_000) reject(new Error("form too large"));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: "breakroom",
      client_secret: process.env.CLIENT_SECRET,
      redirect_uris: [process.env.REDIRECT_URI],
      post_logout_redirect_uris: [process.env.POST_LOGOUT_URI],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  // Every authorization request must carry a PKCE challenge: a client that sends none fails.
  pkce: { required: () => true },
  scopes: ["openid", "profile", "email", "groups"],
  claims: { openid: ["sub"], profile: ["preferred_username"], email: ["email"], groups: ["groups"] },
  // The claims of the granted scopes go in the ID token, where Breakroom reads them first; with
  // CONFORM_ID_TOKEN_CLAIMS=1 only at the userinfo endpoint, as many providers do.
  conformIdTokenClaims: process.env.CONFORM_ID_TOKEN_CLAIMS === "1",
  cookies: { keys: ["a key for the tests only"] },
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: async (ctx, form) => {
        ctx.body = page("Sign out of the test provider?", `${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>`);
      },
      postLogoutSuccessSource: async (ctx) => {
        ctx.body = page("Signed out of the test provider", "");
      },
    },
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // Breakroom is this provider's own application: no consent screen, every asked scope granted.
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope(ctx.oidc.params.scope);
    await grant.save();
    return grant;
  },
  findAccount: async (ctx, id) =>
    accounts[id] && { accountId: id, claims: async () => ({ sub: id, ...accounts[id].claims }) },
  renderError: async (ctx, out) => {
    ctx.type = "html";
    ctx.body = page("Provider error", `<pre>${escape(JSON.stringify(out))}</pre>`);
  },
});
const oidc = provider.callback();

async function interaction(req, res, uid) {
  try {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("unknown interaction");
    if (req.method === "GET") {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(
        page(
          "Sign in to the test provider",
          `<form method="post" action="/interaction/${escape(uid)}">` +
            `<label>Login <input name="login" autocomplete="off" required></label>` +
            `<label>Password <input name="password" type="password" required></label>` +
            `<button type="submit">Sign in to the provider</button></form>`,
        ),
      );
      return;
    }
    const form = await readForm(req);
    const account = accounts[form.get("login")];
    if (!account || account.password !== form.get("password")) {
      res.statusCode = 401;
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.end(page("Wrong login or password", `<a href="/interaction/${escape(uid)}">Try again</a>`));
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: form.get("login") } }, { mergeWithLastSubmission: false });
  } catch (error) {
    res.statusCode = 400;
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.end(page("Interaction failed", escape(error.message)));
  }
}

server.on("request", (req, res) => {
  const match = req.url.match(/^\/interaction\/([\w-]+)$/);
  if (match) return interaction(req, res, match[1]);
  return oidc(req, res);
});
console.log(`OpenID provider on ${issuer}`);
