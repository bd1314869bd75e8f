// End-to-end tests of the web UI in a real headless Chromium (Debian's /usr/bin/chromium, driven
// by puppeteer-core: nothing is downloaded), against a running stack that tests/ui's gtest
// starts (real services, PostgreSQL, JWT auth) and simulated hosts this script boots from the
// ISO the UI hands out. Prints one line per step and exits non-zero on the first failure.
//
//   node tests/e2e.mjs SCENARIO      (flow | cancel-reset | wizard | errors | agent-based | oidc |
//                                     oidc-refresh | infra-env | latency)
//
// Environment (set by tests/ui/ui_e2e_pg_test.cc):
//   UI_BASE            the gateway, "http://127.0.0.1:PORT"
//   UI_TOKEN           a valid bearer token of user demo
//   UI_EXPIRED_TOKEN   an expired token of the same issuer                        (errors)
//   UI_OTHER_CLUSTER   id of a cluster of another tenant                           (errors)
//   UI_GATEWAY_PID     the gateway process, stopped and started again               (errors)
//   UI_READ_ONLY_CLUSTER, UI_NODE_ZERO_TOKEN   the --read-only-cluster gateway's cluster and
//                      a token of its owner (UI_BASE is that gateway)        (agent-based)
//   OIDC_ISSUER        the test's identity provider; UI_BASE is a gateway that signs in
//                      there (--oidc-discovery-file)                                 (oidc)
//   UI_OIDC_CLUSTER    a cluster of the provider's user's organisation  (oidc, oidc-refresh)
//   UI_AICTL_CLUSTER   a cluster made with aictl, without an infra-env          (infra-env)
//   FLEET_BIN, FLEET_PROFILE, FLEET_STATE_DIR   the simulated hosts
//                                                  (flow, cancel-reset, infra-env, latency)
//   FLEET_WORKER_PROFILE   the day-2 host's profile                                  (flow)
//   UI_HOSTS, UI_SAMPLES   hosts on screen and renames timed                       (latency)
//   CHROMIUM           the browser (default /usr/bin/chromium)
//   SCREENSHOT_DIR     where each screen's PNG goes (optional)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import axe from 'axe-core';
import puppeteer from 'puppeteer-core';

const env = process.env;
const base = env.UI_BASE;
const scenario = process.argv[2] ?? 'flow';
const started = Date.now();
const children = [];

function log(message) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}
function fail(message) {
  throw new Error(message);
}

// Accessibility problems axe-core finds that are serious or critical, over every screen shot.
const accessibility = [];

// Screenshots the screen (when SCREENSHOT_DIR is set) and audits it with axe-core. axe is
// evaluated through the DevTools protocol, which the page's CSP does not govern: the UI's own
// policy stays in force for everything else.
async function shot(page, name) {
  if (env.SCREENSHOT_DIR) {
    mkdirSync(env.SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(env.SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  }
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.evaluate(axe.source);
  const { violations, passed, minor } = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    const grave = (v) => v.impact === 'serious' || v.impact === 'critical';
    return {
      violations: result.violations
        .filter(grave)
        .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`),
      passed: result.passes.length,
      minor: result.violations.filter((v) => !grave(v)).map((v) => `${v.id} (${v.impact})`),
    };
  });
  log(`axe on ${name}: ${passed} rules pass, ${violations.length} serious or critical${minor.length ? `, minor: ${minor.join(', ')}` : ''}`);
  for (const v of violations) accessibility.push(`${name}: ${v}`);
}

// Waits for an element whose text contains `text` (optionally within `selector`), returns it.
async function byText(page, text, selector = '*', timeout = 30_000) {
  const handle = await page.waitForFunction(
    (t, s) => {
      const all = [...document.querySelectorAll(s)].filter((e) => e.textContent?.includes(t));
      // The innermost match: no element inside it that the selector takes holds the text too.
      return all.find((e) => ![...e.querySelectorAll(s)].some((c) => c.textContent?.includes(t))) ?? null;
    },
    { timeout },
    text,
    selector,
  );
  return handle.asElement();
}

async function clickText(page, text, selector = 'button') {
  const element = await byText(page, text, selector);
  await element.click();
}

// Presses Tab until the focused element passes `test` (a predicate's source, run in the page);
// fails after 60 presses.
async function tabTo(page, test) {
  for (let i = 0; i < 60; i++) {
    if (await page.evaluate(`(${test})(document.activeElement)`)) return;
    await page.keyboard.press('Tab');
  }
  fail(`Tab never reached ${test}`);
}

// Waits until `condition` (run in the page with `args`) holds, polling every frame, instead of
// reading the screen once right after input: that read holds only if nothing the input sets off
// (a re-render, a timer such as the wizard's focus move) runs after the input's acknowledgement,
// which a loaded machine does not promise. After `timeout`, fails with what `describe` (run
// here, so it may read the page) says.
async function expectOnScreen(page, condition, args, describe, timeout = 30_000) {
  try {
    await page.waitForFunction(condition, { timeout, polling: 'raf' }, ...args);
  } catch (error) {
    if (error?.name !== 'TimeoutError') throw error;
    fail(await describe());
  }
}

// Field `selector` holds exactly `text`: a keystroke that went to another element (the focus
// moved while typing) fails here, naming the field, instead of as a check that reads it later.
async function expectValue(page, selector, text) {
  await expectOnScreen(
    page,
    (s, t) => document.querySelector(s)?.value === t,
    [selector, text],
    async () => `${selector} holds ${JSON.stringify(await page.$eval(selector, (e) => e.value).catch(() => '(no such field)'))}, not the ${JSON.stringify(text)} typed`,
  );
}

// Tab to field `id`, replace its text with `text` by typing.
async function keyType(page, id, text) {
  await tabTo(page, `(e) => e.id === ${JSON.stringify(id)}`);
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await expectValue(page, `#${id}`, text);
}

// Types `text` into the empty field `selector` (page.type focuses it first).
async function typeInto(page, selector, text) {
  await page.type(selector, text);
  await expectValue(page, selector, text);
}

// Tab to the enabled button labelled `label` and press Enter.
async function pressButton(page, label) {
  await tabTo(page, `(e) => e.tagName === 'BUTTON' && !e.disabled && e.textContent.trim() === ${JSON.stringify(label)}`);
  await page.keyboard.press('Enter');
}

// The problem field `id` shows, as read (without PatternFly's screen-reader-only ": error
// status;" that follows it).
async function problemOf(page, id) {
  return page
    .$eval(`[data-testid="${id}-problem"]`, (e) => {
      const copy = e.cloneNode(true);
      copy.querySelectorAll('.pf-v6-screen-reader').forEach((s) => s.remove());
      return copy.textContent;
    })
    .catch(() => '');
}

// Waits until field `id` shows no problem, else fails with `what` and the problem it shows.
async function expectNoProblem(page, id, what) {
  await expectOnScreen(
    page,
    (i) => !document.querySelector(`[data-testid="${i}-problem"]`),
    [id],
    async () => `${what}: "${await problemOf(page, id)}"`,
  );
}

// The drafts each page sent to be checked (see openBrowser).
const drafts = new Map();

// The API's reason for `body` (JSON text) at `path` (a validate_only create), '' if accepted.
async function apiReason(path, body) {
  const response = await fetch(`${base}/api/assisted-install/v2${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.UI_TOKEN}`, 'Content-Type': 'application/json' },
    body,
  });
  if (response.ok) return '';
  return (await response.json()).reason ?? `HTTP ${response.status}`;
}

// Whether field text `shown` is `reason` as a field shows it: the API's words after the field
// path (and NMState's prefix) the reason starts with.
function isReasonOnField(shown, reason) {
  return shown !== '' && (reason.endsWith(`: ${shown}`) || reason.endsWith(`: nmstate: ${shown}`));
}

// Waits until field `id` shows what the REST API answers for the wizard's newest draft, a
// reason naming `path` (e.g. "api_vips[0].ip"); else fails with `what`. The wizard has no words
// of its own for these: the field must show exactly the API's. Only a draft that holds the
// field's current value counts: one sent before the last input (the wizard waits for a pause
// in typing) may show the same path for an older mistake.
async function expectApiProblem(page, id, path, what) {
  const deadline = Date.now() + 30_000;
  let seen = 'no draft was sent';
  for (;;) {
    const draft = drafts.get(page).at(-1);
    const value = await page.$eval(`#${id}`, (e) => e.value.trim()).catch(() => '');
    if (draft && draft.body.includes(JSON.stringify(value).slice(1, -1))) {
      const reason = await apiReason(draft.path, draft.body);
      const shown = await problemOf(page, id);
      seen = `the API says ${JSON.stringify(reason)} about ${draft.path}, the field shows ${JSON.stringify(shown)}`;
      if (reason.includes(`${path}: `) && isReasonOnField(shown, reason) && drafts.get(page).at(-1) === draft) return reason;
    }
    if (Date.now() > deadline) fail(`${what}: ${seen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));  // the poll interval of this bounded wait
  }
}

// Replaces the text of field `selector` as a paste would (one input event), for long values.
async function paste(page, selector, text) {
  await page.click(selector);
  await page.keyboard.down('Control');
  await page.keyboard.press('a');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.keyboard.sendCharacter(text);
  await expectValue(page, selector, text);
}

// Waits until the wizard's Next button (or the one labelled `label`) is disabled (or enabled),
// else fails with `what`.
async function expectNextDisabled(page, disabled, what, label = 'Next') {
  await expectOnScreen(
    page,
    (d, l) => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === l)?.disabled === d,
    [disabled, label],
    async () => what,
  );
}

// Moves the wizard to its next step by `advance` (Enter or a click on Next) and waits for what
// PatternFly's Wizard does after: it focuses the new step's content from a setTimeout(0) once
// the step renders. Input the browser handles before that timer (a loaded renderer may run it
// first) is typed into a field the focus then leaves (keystrokes lost), or is Enter on a
// button the focus then leaves.
async function nextStep(page, advance) {
  await advance();
  await expectOnScreen(
    page,
    () => document.activeElement?.classList.contains('pf-v6-c-wizard__main'),
    [],
    async () => `the wizard never focused its next step; the focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))}`,
  );
}

async function signIn(page, token) {
  await page.waitForSelector('#token', { visible: true });
  await page.$eval('#token', (e) => (e.value = ''));
  await page.type('#token', token);
  await clickText(page, 'Sign in', 'button[type=submit]');
}

async function openBrowser() {
  const browser = await puppeteer.launch({
    executablePath: env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const problems = [];
  // The Content-Security-Policy must not have to block anything the UI itself does, and the UI
  // must not log errors.
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    const text = message.text();
    // A 401/404 the UI expects and handles shows up as a failed resource load: not a problem.
    if (message.type() === 'error' && !/Failed to load resource/.test(text)) problems.push(text);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // The drafts the wizard asks the API to check (validate_only creates), newest last.
  drafts.set(page, []);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'POST' && url.searchParams.get('validate_only') === 'true') {
      drafts.get(page).push({ path: url.pathname.replace('/api/assisted-install/v2', '') + url.search, body: request.postData() });
    }
  });
  return { browser, page, problems };
}

// Runs `steps(page)` in a fresh browser: on failure, reports what the screen showed; at the
// end, any error the page logged fails the scenario.
async function inBrowser(steps) {
  const { browser, page, problems } = await openBrowser();
  try {
    await steps(page);
    if (problems.length > 0) fail(`browser errors:\n  ${problems.join('\n  ')}`);
  } catch (error) {
    await report(page);
    throw error;
  } finally {
    await browser.close();
  }
}

// Boots `count` simulated hosts of `profile` from the ISO at `isoUrl`; `name` keeps each
// group's machines (their disks, ids: seeded by the cluster and the name) apart, so booting
// the same name again boots the same machines. `stageDelay`: how long each install stage
// takes. Returns the fleet's process.
async function bootFleet(isoUrl, clusterId, count = 3, { profile = env.FLEET_PROFILE, name = 'hosts', stageDelay = '50ms' } = {}) {
  const response = await fetch(isoUrl);
  if (!response.ok) fail(`ISO download answered ${response.status}`);
  const iso = path.join(env.FLEET_STATE_DIR, `${name}.iso`);
  mkdirSync(env.FLEET_STATE_DIR, { recursive: true });
  writeFileSync(iso, Buffer.from(await response.arrayBuffer()));
  const fleet = spawn(
    env.FLEET_BIN,
    [
      `--profile=${profile}`,
      `--count=${count}`,
      `--discovery-iso=${iso}`,
      `--state-dir=${path.join(env.FLEET_STATE_DIR, name)}`,
      `--seed=${name === 'hosts' ? clusterId : `${clusterId}-${name}`}`,
      `--stage-delay=${stageDelay}`,
      '--metrics-listen=',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  fleet.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  fleet.on('exit', (code) => code && log(`fleet exited ${code}: ${stderr}`));
  children.push(fleet);
  return fleet;
}

// The gateway process `pid` (started by the test), to stop and start again with the same
// command line, environment and folder: same port, same keys.
async function restartableGateway(pid) {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const environment = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  const gone = () => {
    try {
      // Exited (a zombie until the test reaps it) or reaped.
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
    } catch {
      return true;
    }
  };
  return {
    async stop() {
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 20_000;
      while (!gone()) {
        if (Date.now() > deadline) fail('the gateway did not stop');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async start() {
      const child = spawn(argv[0], argv.slice(1), { env: environment, cwd, stdio: 'ignore' });
      children.push(child);
    },
  };
}

async function statusText(page) {
  return page.$eval('[data-testid="cluster-status"]', (e) => e.textContent.trim()).catch(() => '');
}

async function waitForStatus(page, wanted, timeout) {
  await page.waitForFunction(
    (w) => document.querySelector('[data-testid="cluster-status"]')?.textContent?.trim() === w,
    { timeout, polling: 'mutation' },
    wanted,
  );
}

// sign-in -> create cluster (with inline VIP checks) -> discovery ISO -> hosts appear live ->
// role change -> install -> progress -> installed -> credentials.
async function flow(page) {
  const response = await page.goto(base, { waitUntil: 'load' });
  const csp = response.headers()['content-security-policy'] ?? '';
  if (!csp.includes("script-src 'self'") || csp.includes('unsafe')) fail(`weak or missing CSP: ${csp}`);
  await shot(page, '01-sign-in');
  await signIn(page, 'not-a-token');
  await byText(page, 'This token is not valid');
  await signIn(page, env.UI_TOKEN);
  await byText(page, 'No clusters yet');
  log('signed in; the clusters list is empty');
  await shot(page, '02-clusters-empty');

  await clickText(page, 'Create cluster');
  // The whole wizard by keyboard only: Tab to each field, type, Enter on Next.
  await page.waitForSelector('#name', { visible: true });
  // "demo.example.com": the name the simulated hosts' profiles resolve (api, api-int, apps),
  // which a day-2 host needs to reach the cluster's API.
  await keyType(page, 'name', 'demo');
  await keyType(page, 'domain', 'example.com');
  await keyType(page, 'pull-secret', PULL_SECRET);
  await keyType(page, 'ssh-key', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl demo');
  await tabTo(page, "(e) => e.id === 'topology-compact' && e.checked");
  await expectNextDisabled(page, false, 'Next stays off once the API takes the details');
  await shot(page, '03-wizard-details');
  await nextStep(page, () => pressButton(page, 'Next'));
  await keyType(page, 'machine-network', '192.168.122.0/24');
  await keyType(page, 'api-vip', '10.0.0.5');
  await keyType(page, 'ingress-vip', '192.168.122.6');
  await expectApiProblem(page, 'api-vip', 'api_vips[0].ip', "an API VIP outside the network is not flagged with the API's reason");
  await keyType(page, 'api-vip', '192.168.122.5');
  await keyType(page, 'ingress-vip', '192.168.122.5');
  await expectApiProblem(page, 'ingress-vip', 'ingress_vips[0].ip', "equal VIPs are not flagged with the API's reason");
  await expectNextDisabled(page, true, 'Next is enabled while a VIP is wrong');
  await shot(page, '04-wizard-networking-invalid');
  await keyType(page, 'ingress-vip', '192.168.122.6');
  await expectNoProblem(page, 'ingress-vip', 'a valid ingress VIP still flagged');
  await expectNextDisabled(page, false, 'Next stays off once the API takes the networking');
  log("wizard by keyboard only; the API's reasons for the VIPs shown inline, Next off while they stand");
  await nextStep(page, () => pressButton(page, 'Next'));
  await page.waitForSelector('#image-full', { visible: true });
  await expectNextDisabled(page, false, 'Next stays off on host networking as it comes');
  await nextStep(page, () => pressButton(page, 'Next'));  // host networking: DHCP and the full ISO, as they come
  await byText(page, 'demo.example.com');
  await expectNextDisabled(page, false, 'Create stays off on the review of a draft the API takes', 'Create cluster');
  await shot(page, '05-wizard-review');
  await pressButton(page, 'Create cluster');
  await page.waitForFunction(() => /^\/clusters\/[0-9a-f-]{36}$/.test(location.pathname), { timeout: 20_000 });
  const clusterId = page.url().split('/').pop();
  log(`cluster ${clusterId} created`);

  await clickText(page, 'Generate discovery ISO');
  const isoLink = await page.waitForSelector('[data-testid="iso-link"]', { timeout: 20_000 });
  const isoUrl = await isoLink.evaluate((a) => a.href);
  await shot(page, '06-discovery');
  // From here the page is never reloaded: everything below arrives through the change stream.
  const navigations = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  await bootFleet(isoUrl, clusterId);
  log('3 simulated hosts booted from the ISO the UI offered');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid^="host-row-"]').length === 3, {
    timeout: 60_000,
    polling: 'mutation',
  });
  log('3 hosts appeared');
  await page.waitForFunction(
    () => [...document.querySelectorAll('[data-testid^="host-row-"]')].every((r) => /\d+ CPU/.test(r.textContent)),
    { timeout: 60_000, polling: 'mutation' },
  );
  await waitForStatus(page, 'ready', 120_000);
  log('cluster ready');
  await shot(page, '07-hosts-ready');

  // Role changes go through PATCH and come back through the change stream. One host as a
  // worker leaves a compact cluster short of control-plane hosts: a failing validation shows
  // with the API's message, and setting the role back fixes it.
  const roleOfFirst = '[data-testid^="host-row-"] select[aria-label^="Role of"]';
  await (await page.$(roleOfFirst)).select('worker');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="cluster-status"]')?.textContent?.trim() !== 'ready' &&
      document.querySelector('[data-testid="cluster-validations"] .ai-failing') !== null,
    { timeout: 60_000, polling: 'mutation' },
  );
  const failing = await page.$eval('[data-testid="cluster-validations"]', (e) => e.textContent);
  log(`a worker in a compact cluster: ${await statusText(page)}, failing: ${failing}`);
  // Each failing validation shows the API's message and fix hint, as the API words them.
  const shown = await page.$$eval('[data-testid="cluster-validations"] .ai-failing', (items) =>
    items.map((i) => ({ id: i.dataset.testid.slice('failing-'.length), text: i.textContent, hint: i.querySelector('[data-testid="fix-hint"]')?.textContent ?? '' })),
  );
  const served = Object.values(JSON.parse((await rest('GET', `/clusters/${clusterId}`)).validations_info)).flat();
  for (const item of shown) {
    const api = served.find((v) => v.id === item.id);
    if (!api?.hint) fail(`the API gives no hint for failing ${item.id}`);
    if (!item.text.includes(api.message) || item.hint !== `How to fix: ${api.hint}`) {
      fail(`${item.id} shows "${item.text}", not the API's message "${api.message}" and hint "${api.hint}"`);
    }
  }
  if (shown.length === 0) fail('no failing validation shown');
  log(`fix hints shown as the API gives them: ${shown.map((i) => `${i.id}: ${i.hint}`).join('; ')}`);
  await shot(page, '07b-failing-validation');
  // The pushed status shows before the cluster's re-read brings its new validations; meanwhile
  // the old ones must not show beside it (the screen says it is checking): watched on every
  // change of the page from here on.
  await page.evaluate(() => {
    window.readyBesideOldFailures = false;
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="cluster-status"]')?.textContent?.trim() === 'ready' &&
        document.querySelector('[data-testid="cluster-validations"] .ai-failing') !== null) window.readyBesideOldFailures = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await (await page.$(roleOfFirst)).select('master');
  await page.waitForFunction((s) => document.querySelector(s)?.value === 'master', { timeout: 20_000 }, roleOfFirst);
  await waitForStatus(page, 'ready', 60_000);
  await page.waitForFunction(
    () => document.querySelector('[data-testid="cluster-validations"] .ai-failing, [data-testid="cluster-validations"] [data-testid="rechecking"]') === null,
    { timeout: 30_000, polling: 'mutation' },
  ).catch(() => fail('the failing validation stayed after the fix'));
  if (await page.evaluate(() => window.readyBesideOldFailures)) fail('ready showed beside the failing validation it had fixed');
  log('role set back to control plane: the validation passes, the cluster is ready again');

  // The installation disk is editable too; a disk the host cannot install on (too small) is
  // refused by the API, whose reason shows, and the host keeps the disk it had.
  const diskOfFirst = '[data-testid^="host-row-"] select[aria-label^="Installation disk of"]';
  const diskBefore = await page.$eval(diskOfFirst, (s) => s.value);
  const small = await page.$eval(diskOfFirst, (s) => [...s.options].find((o) => o.textContent.startsWith('vdb'))?.value);
  if (!small) fail('no second disk offered');
  await (await page.$(diskOfFirst)).select(small);
  const refusal = await (await page.waitForSelector('[data-testid="cluster-error"]', { timeout: 20_000 })).evaluate((e) => e.textContent);
  await expectOnScreen(page, (s, v) => document.querySelector(s)?.value === v, [diskOfFirst, diskBefore], async () => 'the refused disk stayed selected');
  log(`an ineligible installation disk is refused with the API's reason: ${refusal}`);

  await clickText(page, 'Install cluster');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="cluster-status"]')?.textContent?.trim() !== 'ready',
    { timeout: 30_000, polling: 'mutation' },
  );
  log(`installing: ${await statusText(page)}`);
  await page.waitForSelector('[data-testid="stage"]', { timeout: 120_000 });
  await shot(page, '08-installing');
  await waitForStatus(page, 'installed', 180_000);
  log('cluster installed');
  if (navigations.length > 0) fail(`the page navigated while waiting: ${navigations.join(', ')}`);

  await clickText(page, 'Reveal kubeadmin password');
  const password = await page.waitForSelector('[data-testid="kubeadmin-password"] input', { timeout: 20_000 });
  if (!(await password.evaluate((i) => i.value)).trim()) fail('empty kubeadmin password');
  const downloads = path.join(env.FLEET_STATE_DIR, 'downloads');
  mkdirSync(downloads, { recursive: true });
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  await page.click('[data-testid="download-kubeconfig"]');
  const deadline = Date.now() + 20_000;
  while (!readdirSync(downloads).includes('kubeconfig')) {
    if (Date.now() > deadline) fail('kubeconfig was not downloaded');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  log('credentials: password revealed, kubeconfig downloaded');
  await shot(page, '09-installed');

  // Events: the severity filter keeps warnings and errors only, and "All" brings the rest back.
  const severities = () => page.$$eval('table[aria-label="Events"] tbody td[data-label="Severity"]', (cells) => cells.map((c) => c.textContent));
  const everything = await severities();
  await clickText(page, 'Warnings and errors');
  await expectOnScreen(
    page,
    () => [...document.querySelectorAll('table[aria-label="Events"] tbody td[data-label="Severity"]')].every((c) => ['warning', 'error', 'critical'].includes(c.textContent)),
    [],
    async () => `the filter shows: ${(await severities()).join(' ')}`,
  );
  const serious = await severities();
  await clickText(page, 'All');
  await expectOnScreen(page, (n) => document.querySelectorAll('table[aria-label="Events"] tbody tr').length >= n, [everything.length], async () => '"All" did not bring every event back');
  if (!everything.includes('info') || serious.length >= everything.length) fail(`the filter hid nothing: ${everything.length} events, ${serious.length} shown filtered`);
  log(`events: ${everything.length} in all, ${serious.length} warnings and errors`);

  // Day 2: the installed cluster takes one more host, booted from the ISO the UI offers then.
  await clickText(page, 'Add hosts');
  await waitForStatus(page, 'adding-hosts', 30_000);
  await byText(page, 'Add hosts to the installed cluster', 'h2, h3, h4, div');
  await clickText(page, 'Generate discovery ISO');
  const day2Iso = await (await page.waitForSelector('[data-testid="iso-link"]', { timeout: 20_000 })).evaluate((a) => a.href);
  if (!day2Iso.includes('/images/')) fail(`no day-2 discovery ISO link: ${day2Iso}`);
  await clickText(page, 'Download iPXE script');
  const ipxeDeadline = Date.now() + 20_000;
  let ipxe;
  while (!(ipxe = readdirSync(downloads).find((f) => f.endsWith('.ipxe')))) {
    if (Date.now() > ipxeDeadline) fail('the iPXE script was not downloaded');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const script = readFileSync(path.join(downloads, ipxe), 'utf8');
  if (!script.startsWith('#!ipxe') || !script.includes('kernel')) fail(`not an iPXE script: ${script.slice(0, 200)}`);
  log('cluster open for day-2 hosts; its discovery ISO and iPXE script offered');
  await bootFleet(day2Iso, clusterId, 1, { profile: env.FLEET_WORKER_PROFILE, name: 'day2' });
  log('a worker booted from the day-2 ISO');
  // It appears beside the installed hosts, passes the day-2 checks (its API VIP check reaches
  // the cluster's machine config server) and offers Install host in its row.
  const installHost = await page.waitForSelector('[data-testid^="install-host-"]', { timeout: 120_000 });
  const day2Name = (await installHost.evaluate((b) => b.dataset.testid)).slice('install-host-'.length);
  await shot(page, '09b-day2-add-hosts');
  await installHost.click();
  await page.waitForFunction(
    (n) => document.querySelector(`[data-testid="host-row-${n}"]`)?.textContent?.includes('added-to-existing-cluster'),
    { timeout: 120_000, polling: 'mutation' },
    day2Name,
  );
  const { hosts } = await rest('GET', `/clusters/${clusterId}`);
  const statuses = hosts.map((h) => h.status).sort().join(' ');
  if (statuses !== 'added-to-existing-cluster installed installed installed') fail(`after day 2 the hosts are: ${statuses}`);
  log(`day-2 host ${day2Name} installed into the running cluster (added-to-existing-cluster); the others untouched`);
  await shot(page, '09c-day2-host-added');
  if (navigations.length > 0) fail(`the page navigated while waiting: ${navigations.join(', ')}`);

  await page.goto(base, { waitUntil: 'load' });
  await byText(page, 'adding-hosts', '[data-testid="cluster-row-demo"] *');
  await shot(page, '10-clusters-list');

  // The list: a cluster made elsewhere appears by itself, search narrows the list, and delete
  // asks first, then the row goes.
  await rest('POST', '/clusters', {
    name: 'spare',
    base_dns_domain: 'example.com',
    openshift_version: '4.16',
    pull_secret: PULL_SECRET,
    control_plane_count: 3,
    user_managed_networking: true,
  });
  await page.waitForSelector('[data-testid="cluster-row-spare"]', { timeout: 20_000 });
  const rowNames = () => page.$$eval('[data-testid^="cluster-row-"]', (rows) => rows.map((r) => r.dataset.testid.slice('cluster-row-'.length)).join(' '));
  await typeInto(page, 'input[aria-label="Search clusters"]', 'spa');
  await expectOnScreen(
    page,
    () => [...document.querySelectorAll('[data-testid^="cluster-row-"]')].map((r) => r.dataset.testid).join() === 'cluster-row-spare',
    [],
    async () => `searching "spa" shows ${await rowNames()}`,
  );
  await page.click('button[aria-label="Delete spare"]');
  await page.waitForSelector('[role="dialog"]', { visible: true });
  await shot(page, '10b-delete-cluster');
  await clickText(page, 'Delete', '[role="dialog"] button');
  await expectOnScreen(page, () => !document.querySelector('[data-testid="cluster-row-spare"]'), [], async () => `after delete the list shows ${await rowNames()}`);
  const [left] = await rest('GET', '/clusters').then((list) => list.filter((c) => c.name === 'spare'));
  if (left) fail('the deleted cluster is still there');
  log('the list: a new cluster appeared by itself, search narrowed to it, delete (confirmed) removed it');
}

// Static networking whose route goes through an interface the YAML does not define is valid
// YAML, so only the API can refuse it.
const staticYaml = (routeInterface) => `interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 192.168.122.20
          prefix-length: 24
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 192.168.122.1
      next-hop-interface: ${routeInterface}
`;

// The wizard's advanced parts: dual stack with advanced CIDRs (inline host-prefix and overlap errors),
// static networking per host (a YAML syntax error caught in the browser, then an NMState
// mistake only the API sees, shown on its field, fixed, and created), a trust bundle and the
// minimal ISO; then what the API stored.
async function wizard(page) {
  const certificate = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-subj', '/CN=e2e registry CA', '-days', '1'],
    { encoding: 'utf8' },
  );
  if (certificate.status !== 0) fail(`openssl: ${certificate.stderr}`);
  await page.goto(base, { waitUntil: 'load' });
  await signIn(page, env.UI_TOKEN);
  await clickText(page, 'Create cluster');
  await page.waitForSelector('#name', { visible: true });
  // Every message is the API's: Enter in the empty cluster name (an implicit submission) gives
  // the browser no constraint of its own to speak of ("Please fill out this field."), and once
  // a field was left the API's first problem with the draft shows on its field, one at a time.
  await page.focus('#name');
  await page.keyboard.press('Enter');
  const browserSays = await page.$$eval('input, textarea, select', (fields) => fields.map((f) => f.validationMessage).filter(Boolean));
  if (browserSays.length > 0) fail(`the browser validates wizard fields itself: ${browserSays.join('; ')}`);
  await page.focus('#domain');
  await expectApiProblem(page, 'pull-secret', 'pull_secret', "an empty pull secret is not flagged with the API's reason");
  await paste(page, '#pull-secret', PULL_SECRET);
  await expectApiProblem(page, 'name', 'name', "an empty cluster name is not flagged with the API's reason");
  log("an empty pull secret, then an empty cluster name: the API's reasons, none of the browser's");
  await typeInto(page, '#name', 'static');
  await typeInto(page, '#domain', 'example.com');
  await expectNextDisabled(page, false, 'Next stays off once the API takes the details');
  await nextStep(page, () => clickText(page, 'Next'));

  await page.waitForSelector('#stack-dual', { visible: true });
  await page.click('#stack-dual');
  await typeInto(page, '#machine-network', '192.168.122.0/24');
  await typeInto(page, '#machine-network-6', 'fd00:1::/64');
  await typeInto(page, '#api-vip', '192.168.122.5');
  await typeInto(page, '#ingress-vip', '192.168.122.6');
  await typeInto(page, '#api-vip-6', 'fd00:1::5');
  await typeInto(page, '#ingress-vip-6', 'fd00:1::6');
  await page.click('#advanced-networking');
  await page.waitForSelector('#host-prefix', { visible: true });
  await paste(page, '#host-prefix', '26');
  await expectApiProblem(page, 'host-prefix', 'cluster_networks[0].host_prefix', "a host prefix too long for 10.128.0.0/14 is not flagged with the API's reason");
  await expectNextDisabled(page, true, 'Next is enabled while the host prefix is wrong');
  await shot(page, '04b-wizard-dual-stack-advanced');
  await paste(page, '#host-prefix', '24');
  await paste(page, '#service-network', '192.168.0.0/16');
  // The API names the later of two overlapping blocks: the machine network.
  await expectApiProblem(page, 'machine-network', 'machine_networks[0].cidr', "a service network over the machine network is not flagged with the API's reason");
  await paste(page, '#service-network', '172.30.0.0/16');
  await expectNextDisabled(page, false, 'Next stays disabled once the networks are right');
  await nextStep(page, () => clickText(page, 'Next'));
  log("dual stack with advanced CIDRs; a wrong host prefix and overlapping networks flagged inline in the API's words");

  await page.waitForSelector('#image-minimal', { visible: true });
  await page.click('#image-minimal');
  await page.click('#static-ips');
  await page.waitForSelector('#host-0-yaml', { visible: true });
  await typeInto(page, '#host-0-mac', '52:54:00:aa:bb:01');
  await paste(page, '#host-0-yaml', 'interfaces:\n  - name: eth0\n   type: ethernet\n');
  await expectApiProblem(page, 'host-0-yaml', 'static_network_config[0].network_yaml', "a YAML syntax error is not flagged with the API's reason");
  await expectNextDisabled(page, true, 'Next is enabled while the YAML does not parse');
  log(`a YAML syntax error, in the API's words: ${await problemOf(page, 'host-0-yaml')}`);
  // A route through an interface the YAML does not configure: what only NMState's rules can
  // tell, shown as typed, before anything is created.
  await paste(page, '#host-0-yaml', staticYaml('eth9'));
  await expectApiProblem(page, 'host-0-yaml', 'static_network_config[0].network_yaml', "the API's NMState reason is not on the YAML field");
  if (!(await problemOf(page, 'host-0-yaml')).includes('"eth9" is not an interface this document configures')) fail(`the route through eth9 is not what the field shows: ${await problemOf(page, 'host-0-yaml')}`);
  await page.$eval('[data-testid="host-0-yaml-problem"]', (e) => e.scrollIntoView({ block: 'center' }));
  await shot(page, '05b-wizard-static-network-api-error');
  log(`the API's NMState error shown on the field as typed: ${await problemOf(page, 'host-0-yaml')}`);
  await paste(page, '#host-0-yaml', staticYaml('eth0'));
  await expectNoProblem(page, 'host-0-yaml', "the API's error stayed after the YAML was fixed");
  await paste(page, '#trust-bundle', certificate.stdout);
  await expectNextDisabled(page, false, 'Next stays off once the API takes the host networking and the trust bundle');
  await nextStep(page, () => clickText(page, 'Next'));
  await byText(page, 'minimal ISO');
  await expectNextDisabled(page, false, 'Create stays off on the review of a draft the API takes', 'Create cluster');
  await clickText(page, 'Create cluster');
  await page.waitForFunction(() => /^\/clusters\/[0-9a-f-]{36}$/.test(location.pathname), { timeout: 20_000 });
  const clusterId = page.url().split('/').pop();
  log(`cluster ${clusterId} created`);

  const cluster = await rest('GET', `/clusters/${clusterId}`);
  const cidrs = (list) => (list ?? []).map((n) => n.cidr).join(' ');
  if (cidrs(cluster.machine_networks) !== '192.168.122.0/24 fd00:1::/64') fail(`machine networks: ${cidrs(cluster.machine_networks)}`);
  if (cluster.cluster_networks?.[0]?.host_prefix !== 24 || cluster.cluster_networks?.length !== 2) fail(`cluster networks: ${JSON.stringify(cluster.cluster_networks)}`);
  if ((cluster.api_vips ?? []).length !== 2) fail(`API VIPs: ${JSON.stringify(cluster.api_vips)}`);
  const [infraEnv] = await rest('GET', `/infra-envs?cluster_id=${clusterId}`);
  if (infraEnv.type !== 'minimal-iso') fail(`image type ${infraEnv.type}`);
  if (!infraEnv.static_network_config.includes('next-hop-interface: eth0')) fail(`static network: ${infraEnv.static_network_config}`);
  if (!infraEnv.additional_trust_bundle?.includes('BEGIN CERTIFICATE')) fail('no trust bundle stored');
  log('the API holds both stacks, host prefix 24, the fixed YAML, the trust bundle and the minimal ISO');

  // The discovery screen offers the type the wizard chose and can switch it.
  await page.waitForFunction(() => document.querySelector('#image-type')?.value === 'minimal-iso', { timeout: 20_000 });
  await page.select('#image-type', 'full-iso');
  await clickText(page, 'Generate discovery ISO');
  await page.waitForSelector('[data-testid="iso-link"]', { timeout: 20_000 });
  const [switched] = await rest('GET', `/infra-envs?cluster_id=${clusterId}`);
  if (switched.type !== 'full-iso') fail(`the discovery screen did not switch the image type: ${switched.type}`);
  log('discovery screen: minimal ISO as chosen in the wizard, switched to full before generating');
}

// What the screen showed when a step failed: its text, and a screenshot.
async function report(page) {
  try {
    if (env.SCREENSHOT_DIR) await page.screenshot({ path: path.join(env.SCREENSHOT_DIR, `failure-${scenario}.png`), fullPage: true });
    log(`the screen said:\n${(await page.evaluate(() => document.body.innerText)).slice(0, 4000)}`);
  } catch (e) {
    log(`no report: ${e}`);
  }
}

// Expired token -> sign-in; another tenant's cluster URL -> not found.
async function errors(page) {
  await page.goto(base, { waitUntil: 'load' });
  await signIn(page, env.UI_EXPIRED_TOKEN);
  await byText(page, 'This token is not valid');
  log('an expired token is refused at sign-in');
  await signIn(page, env.UI_TOKEN);
  await byText(page, 'Clusters', 'h2');
  // The token expires while the UI is open: the next call answers 401 and the UI signs out.
  await page.evaluate((t) => sessionStorage.setItem('assisted.token', t), env.UI_EXPIRED_TOKEN);
  await page.goto(`${base}/clusters/${env.UI_OTHER_CLUSTER}`, { waitUntil: 'load' });
  await page.waitForSelector('#token', { visible: true, timeout: 20_000 });
  log('an expired token in use leads back to sign-in');
  await signIn(page, env.UI_TOKEN);
  await page.waitForSelector('[data-testid="cluster-not-found"]', { timeout: 20_000 });
  log("another tenant's cluster is not found");
  await shot(page, '11-not-found');

  // The gateway goes away under an open screen: a banner says so at once, and the screen
  // recovers by itself when it is back.
  await page.goto(base, { waitUntil: 'load' });
  await byText(page, 'Clusters', 'h2');
  const gateway = await restartableGateway(Number(env.UI_GATEWAY_PID));
  await gateway.stop();
  await page.waitForSelector('[data-testid="backend-down"]', { timeout: 20_000 });
  log('gateway stopped: the banner is shown');
  await shot(page, '12-backend-down');
  await gateway.start();
  await page.waitForFunction(() => !document.querySelector('[data-testid="backend-down"]'), { timeout: 30_000 });
  await byText(page, 'Create cluster', 'button');
  log('gateway back: the banner is gone');
  const unknown = await page.goto(`${base}/api/assisted-install/v2/no-such-route`);
  if (unknown.status() !== 404 || !(await unknown.text()).includes('"kind":"Error"')) fail('an unknown API path did not answer an Error 404');
}

// The agent-based installer's node 0 (a gateway with --read-only-cluster): its one cluster's
// progress opens without sign-in, read-only, follows changes live, and shows no credentials;
// everything else still needs a token.
async function agentBased(page) {
  const id = env.UI_READ_ONLY_CLUSTER;
  const token = env.UI_NODE_ZERO_TOKEN;
  // What the operator gave the cluster: a proxy with a password the view must never show.
  await rest('PATCH', `/clusters/${id}`, { http_proxy: 'http://proxyuser:proxy-secret@proxy.example.com:3128' }, token);
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="read-only"]', { timeout: 20_000 });
  await byText(page, 'kni22.example.com', 'h2');
  if (await page.$('#token')) fail('the read-only view asked for a token');
  for (const label of ['Install cluster', 'Add hosts', 'Generate discovery ISO', 'Download kubeconfig', 'Reveal kubeadmin password', 'Sign out']) {
    if (await page.$$eval('button', (buttons, l) => buttons.some((b) => b.textContent.trim() === l), label)) fail(`the read-only view offers "${label}"`);
  }
  log('node 0 without sign-in: the cluster read-only, no action, no credentials');
  await shot(page, '13-agent-based-read-only');

  // A change of the cluster (its owner renames it) shows at once, through the change stream.
  const navigations = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  await rest('PATCH', `/clusters/${id}`, { name: 'kni23' }, token);
  await byText(page, 'kni23.example.com', 'h2');
  if (navigations.length > 0) fail(`the page navigated: ${navigations.join(', ')}`);
  log('a change of the cluster showed live, without a reload');

  // Without credentials: the progress document and that cluster's changes, nothing else.
  const anonymous = async (path) => (await fetch(`${base}/api/assisted-install/v2${path}`)).status;
  const view = await (await fetch(`${base}/api/assisted-install/v2/web-ui/progress`)).text();
  if (view.includes('proxy-secret') || view.includes('pull_secret')) fail(`the progress view shows a secret: ${view.slice(0, 300)}`);
  const refused = {
    [`/clusters/${id}`]: await anonymous(`/clusters/${id}`),
    [`/clusters/${id}/downloads/credentials?file_name=kubeconfig`]: await anonymous(`/clusters/${id}/downloads/credentials?file_name=kubeconfig`),
    '/clusters': await anonymous('/clusters'),
    [`/changes?cluster_id=${env.UI_OTHER_CLUSTER}`]: await anonymous(`/changes?cluster_id=${env.UI_OTHER_CLUSTER}`),
    '/changes': await anonymous('/changes'),
  };
  for (const [path, status] of Object.entries(refused)) if (status !== 401) fail(`anonymous GET ${path} answered ${status}, not 401`);
  if ((await anonymous(`/changes?cluster_id=${id}`)) !== 200) fail("anonymous GET of the cluster's changes was refused");
  log('without credentials: REST, credentials and other clusters answer 401; the view holds no secret');
}

const PULL_SECRET = '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}';

// A cluster "demo" (the name the simulated hosts' profiles resolve) of 3 control-plane hosts
// with `networking`, made through the REST API, and the URL of its full discovery ISO.
async function demoClusterWithIso(networking) {
  const cluster = await rest('POST', '/clusters', {
    name: 'demo',
    base_dns_domain: 'example.com',
    openshift_version: '4.16',
    pull_secret: PULL_SECRET,
    control_plane_count: 3,
    ...networking,
  });
  const infraEnv = await rest('POST', '/infra-envs', { name: 'demo', cluster_id: cluster.id, pull_secret: PULL_SECRET, image_type: 'full-iso' });
  const { url } = await rest('GET', `/infra-envs/${infraEnv.id}/downloads/image-url`);
  return { cluster, url };
}

// The REST API as the demo user (or as `token`'s), from here (not the browser).
async function rest(method, path, body, token = env.UI_TOKEN) {
  const response = await fetch(`${base}/api/assisted-install/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) fail(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// Milliseconds since the epoch of an RFC 3339 time with any number of fractional digits.
function epochMs(text) {
  return Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
}

// The samples' figures: p50, p99 and max of each named series (ms), sorted in place.
function summarize(series) {
  const figures = {};
  for (const [name, values] of Object.entries(series)) {
    values.sort((a, b) => a - b);
    figures[`${name}_p50_ms`] = Math.round(percentile(values, 50));
    figures[`${name}_p99_ms`] = Math.round(percentile(values, 99));
    figures[`${name}_max_ms`] = Math.round(values[values.length - 1]);
  }
  return figures;
}

// From a host's status change in the inventory to the browser's DOM showing it, with UI_HOSTS
// hosts on screen, hop by hop. Each sample changes one host's status through the API: given the
// name of the next host (the orchestrator's hostname-unique check fails and both go from known
// to insufficient), then its own name back (insufficient to known); UI_SAMPLES changes in all,
// one after the other. Per sample, on one clock (this machine's):
//   sent       the PATCH leaves here
//   committed  the inventory writes the host's new status (its status_updated_at: PostgreSQL's
//              now() in the orchestrator's status write)
//   pushed     the browser has the change-stream answer naming the host with that status
//   shown      the host's row shows the new status (a MutationObserver in the page)
//   reread     the browser has re-read the host (the rest of its row: validations, stages)
// Prints its figures as the last line (JSON): "change_to_dom" (committed → shown) is the
// issue's figure, "push" (committed → pushed) and "render" (pushed → shown) its hops; "judge"
// (sent → committed) is the orchestrator's, "row_reread" (pushed → reread) the rest of the
// row's, "patch_answer" the PATCH's own round trip.
async function latency() {
  const hostCount = Number(env.UI_HOSTS ?? 100);
  const samples = Number(env.UI_SAMPLES ?? 100);
  const { cluster, url } = await demoClusterWithIso({ user_managed_networking: true });
  await bootFleet(url, cluster.id, hostCount);
  log(`${hostCount} simulated hosts booted`);

  await inBrowser(async (page) => {
    // What the page receives, and when: each change-stream answer (its text) and every other
    // REST answer's arrival, noted as the UI's code reads the body.
    await page.evaluateOnNewDocument(() => {
      window.__answers = [];
      for (const method of ['text', 'json']) {
        const original = Response.prototype[method];
        Response.prototype[method] = async function (...args) {
          const body = await original.apply(this, args);
          const at = performance.timeOrigin + performance.now();
          const changes = this.url.includes('/v2/changes');
          window.__answers.push({ url: this.url, at, text: changes ? body : '' });
          return body;
        };
      }
    });
    await page.goto(base, { waitUntil: 'load' });
    await page.evaluate((t) => sessionStorage.setItem('assisted.token', t), env.UI_TOKEN);
    await page.goto(`${base}/clusters/${cluster.id}`, { waitUntil: 'load' });
    await page.waitForFunction(
      (n) => [...document.querySelectorAll('[data-testid^="host-row-"] [data-testid="status"]')].filter((s) => s.textContent === 'known').length === n,
      { timeout: 600_000, polling: 'mutation' },
      hostCount,
    );
    log(`${hostCount} hosts on screen, all known`);
    // The page notes when each row first shows each status (by the wall clock this process
    // uses too); a sample forgets the one it waits for just before it starts.
    await page.evaluate(() => {
      window.__seen = {};
      const note = () => {
        const now = performance.timeOrigin + performance.now();
        for (const row of document.querySelectorAll('[data-testid^="host-row-"]')) {
          const key = `${row.dataset.testid.slice('host-row-'.length)}=${row.querySelector('[data-testid="status"]')?.textContent}`;
          if (!(key in window.__seen)) window.__seen[key] = now;
        }
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-testid'] });
    });
    const hosts = (await rest('GET', `/clusters/${cluster.id}`)).hosts;
    const series = { change_to_dom: [], judge: [], push: [], render: [], row_reread: [], patch_answer: [] };
    const change = async (host, name, status) => {
      const key = `${name}=${status}`;
      await page.evaluate((k) => {
        delete window.__seen[k];
        window.__answers = [];
      }, key);
      const sent = Date.now();
      await rest('PATCH', `/infra-envs/${host.infra_env_id}/hosts/${host.id}`, { host_name: name });
      series.patch_answer.push(Date.now() - sent);
      const shown = await (await page.waitForFunction((k) => window.__seen[k], { timeout: 60_000, polling: 'mutation' }, key)).jsonValue();
      const now = await rest('GET', `/infra-envs/${host.infra_env_id}/hosts/${host.id}`);
      const committed = epochMs(now.status_updated_at);
      const pushedOf = (answers) => answers.find((a) => a.text.includes(`"id":"${host.id}"`) && a.text.includes(`"status":"${status}"`))?.at;
      const rereadOf = (answers, after) => answers.find((a) => a.url.includes(`/hosts/${host.id}`) && a.at >= after)?.at;
      const answered = async () => {
        const answers = await page.evaluate(() => window.__answers);
        const pushed = pushedOf(answers);
        return { answers, pushed, reread: pushed && rereadOf(answers, pushed) };
      };
      let seen = await answered();
      // The re-read may still be on its way when the row shows the pushed status.
      for (const deadline = Date.now() + 30_000; seen.pushed && !seen.reread && Date.now() < deadline; seen = await answered()) {
        await page.waitForFunction((n) => window.__answers.length > n, { timeout: 30_000, polling: 'raf' }, seen.answers.length).catch(() => {});
      }
      const { answers, pushed, reread } = seen;
      if (now.status !== status || !pushed || !reread) {
        fail(`sample ${key}: status ${now.status}, pushed ${pushed}, re-read ${reread}; answers ${JSON.stringify(answers.map((a) => [a.url, a.at - sent]))}`);
      }
      series.change_to_dom.push(shown - committed);
      series.judge.push(committed - sent);
      series.push.push(pushed - committed);
      series.render.push(shown - pushed);
      series.row_reread.push(reread - pushed);
    };
    const nameOf = (host) => JSON.parse(host.inventory).hostname;
    for (let i = 0; series.change_to_dom.length < samples; i++) {
      const host = hosts[i % hosts.length];
      await change(host, nameOf(hosts[(i + 1) % hosts.length]), 'insufficient');
      if (series.change_to_dom.length < samples) await change(host, nameOf(host), 'known');
    }
    await shot(page, `latency-${hostCount}-hosts`);
    console.log(JSON.stringify({ hosts: hostCount, samples, ...summarize(series), cores: availableParallelism() }));
  });
}

function claimsOf(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

// Signs in through the identity provider (OIDC_ISSUER) from cluster `cluster`'s screen, back to
// it; the tab's token.
async function signInThroughProvider(page, cluster) {
  await page.goto(`${base}/clusters/${cluster}`, { waitUntil: 'load' });
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), (await page.waitForSelector('[data-testid="oidc-sign-in"]', { visible: true })).click()]);
  if (!page.url().startsWith(`${env.OIDC_ISSUER}/authorize`)) fail(`not sent to the provider: ${page.url()}`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), clickText(page, 'Sign in as demo')]);
  await byText(page, 'oidc.example.com', 'h2');
  return page.evaluate(() => sessionStorage.getItem('assisted.token'));
}

// A sign-in through a provider whose tokens live a few seconds (the test sets the lifetime)
// stays alive: the tab trades its refresh token for new tokens before each expires, the first
// token expires for the gateway too (401, past its clock leeway), and the screen still
// follows the cluster live with the token it holds now, without a sign-in in between.
async function oidcRefresh(page) {
  const cluster = env.UI_OIDC_CLUSTER;
  const first = await signInThroughProvider(page, cluster);
  const lifetime = claimsOf(first).exp - claimsOf(first).iat;
  log(`signed in through the provider; its tokens live ${lifetime} s`);
  const held = () => page.evaluate(() => sessionStorage.getItem('assisted.token'));
  await page.waitForFunction((t) => { const now = sessionStorage.getItem('assisted.token'); return now && now !== t; }, { timeout: lifetime * 1000 * 3, polling: 250 }, first);
  const second = await held();
  if (claimsOf(second).iss !== env.OIDC_ISSUER || claimsOf(second).exp <= claimsOf(first).exp) fail(`the new token is not a later one of the provider: ${JSON.stringify(claimsOf(second))}`);
  if (claimsOf(first).exp * 1000 <= Date.now()) fail('the token was refreshed only after it expired');
  log(`refreshed before it expired: a new token from the provider, expiring ${claimsOf(second).exp - claimsOf(first).exp} s later`);

  // Until the gateway refuses the first token (its expiry plus the gateway's clock leeway),
  // the tab keeps refreshing; then the screen must still work with what it holds.
  const refusedBy = async (token) => (await fetch(`${base}/api/assisted-install/v2/clusters/${cluster}`, { headers: { Authorization: `Bearer ${token}` } })).status;
  try {
    await page.waitForFunction(
      async (t) => (await fetch(`/api/assisted-install/v2/clusters/${location.pathname.split('/')[2]}`, { headers: { Authorization: `Bearer ${t}` } })).status === 401,
      { timeout: (lifetime + 90) * 1000, polling: 1000 },
      first,
    );
  } catch (error) {
    if (error?.name !== 'TimeoutError') throw error;
    fail(`the first token is still taken: ${await refusedBy(first)}`);
  }
  if (await page.$('#token, [data-testid="oidc-sign-in"]')) fail('the tab went back to sign-in');
  const now = await held();
  if ((await refusedBy(now)) !== 200) fail(`the token the tab holds is refused: ${await refusedBy(now)}`);
  log(`the first token is refused now; the tab holds a token the gateway takes (${Math.round(claimsOf(now).exp - Date.now() / 1000)} s left)`);

  // The change stream and the re-reads carry the current token: a rename shows live.
  await rest('PATCH', `/clusters/${cluster}`, { name: 'oidc2' }, now);
  await byText(page, 'oidc2.example.com', 'h2');
  if (await page.$('#token, [data-testid="oidc-sign-in"]')) fail('the tab went back to sign-in');
  log('a change of the cluster still shows live, with no sign-in in between');
}

// A cluster made without an infra-env (aictl, UI_AICTL_CLUSTER): its screen offers to generate
// the discovery image, which asks for the pull secret (checked inline, nothing created without
// it), creates the infra-env bound to the cluster, hands out the ISO, and a host booted from it
// shows up on the screen.
async function infraEnv(page) {
  const cluster = env.UI_AICTL_CLUSTER;
  if ((await rest('GET', `/infra-envs?cluster_id=${cluster}`)).length !== 0) fail('the aictl cluster has an infra-env already');
  await page.goto(base, { waitUntil: 'load' });
  await page.evaluate((t) => sessionStorage.setItem('assisted.token', t), env.UI_TOKEN);
  await page.goto(`${base}/clusters/${cluster}`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="no-infra-env"]', { visible: true });
  await shot(page, '06b-no-infra-env');
  await page.click('[data-testid="create-infra-env"]');
  // The field shows the API's own reason for an infra-env without a pull secret.
  const refusal = await apiReason('/infra-envs?validate_only=true', JSON.stringify({ name: 'check', cluster_id: cluster, pull_secret: '' }));
  if (!refusal.startsWith('pull_secret: ')) fail(`the API does not name the pull secret: ${refusal}`);
  await page.waitForSelector('[data-testid="discovery-pull-secret-problem"]', { visible: true });
  if (!isReasonOnField(await problemOf(page, 'discovery-pull-secret'), refusal)) {
    fail(`Generate without a pull secret does not show the API's "${refusal}" on the field: "${await problemOf(page, 'discovery-pull-secret')}"`);
  }
  if ((await rest('GET', `/infra-envs?cluster_id=${cluster}`)).length !== 0) fail('an infra-env was created without a pull secret');
  log("without a pull secret: the API's reason on the field, nothing created");

  await paste(page, '#discovery-pull-secret', PULL_SECRET);
  await page.select('#image-type', 'full-iso');
  await page.click('[data-testid="create-infra-env"]');
  const link = await page.waitForSelector('[data-testid="iso-link"]', { visible: true, timeout: 60_000 });
  const isoUrl = await link.evaluate((a) => a.href);
  const made = await rest('GET', `/infra-envs?cluster_id=${cluster}`);
  if (made.length !== 1 || made[0].type !== 'full-iso') fail(`not one full-iso infra-env of the cluster: ${JSON.stringify(made)}`);
  if (await page.$('[data-testid="no-infra-env"]')) fail('the screen still says there is no discovery image');
  log(`"Generate discovery image" made infra-env ${made[0].id} of the cluster and its ISO link`);
  await shot(page, '06c-infra-env-generated');

  await bootFleet(isoUrl, cluster, 1);
  await page.waitForSelector('[data-testid^="host-row-"]', { visible: true, timeout: 120_000 });
  log('a host booted from that ISO shows up on the cluster screen');
}

// Sign-in through the identity provider (authorization code flow with PKCE): a denial and a
// forged answer are refused with a reason, a real sign-in returns to the screen asked for with
// the provider's token, and sign-out ends the provider's session too.
async function oidc(page) {
  const issuer = env.OIDC_ISSUER;
  const cluster = env.UI_OIDC_CLUSTER;
  const atProvider = () => page.url().startsWith(`${issuer}/authorize`);
  const response = await page.goto(`${base}/clusters/${cluster}`, { waitUntil: 'load' });
  const csp = response.headers()['content-security-policy'] ?? '';
  if (!csp.includes(`connect-src 'self' ${issuer};`)) fail(`the CSP does not let the page reach the token endpoint (and only it): ${csp}`);
  await page.waitForSelector('[data-testid="oidc-sign-in"]', { visible: true });
  await shot(page, '01b-sign-in-oidc');

  // The user declines at the provider: the reason shows, no token.
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid="oidc-sign-in"]')]);
  if (!atProvider()) fail(`not sent to the provider: ${page.url()}`);
  const asked = Object.fromEntries(new URL(page.url()).searchParams);
  if (asked.response_type !== 'code' || asked.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(asked.code_challenge ?? '') ||
      asked.redirect_uri !== `${base}/oidc/callback` || !asked.state || !asked.scope?.split(' ').includes('openid')) {
    fail(`the authorization request is not the code flow with PKCE: ${JSON.stringify(asked)}`);
  }
  log(`sent to the provider: code flow, S256 challenge, state, redirect ${asked.redirect_uri}`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), clickText(page, 'Deny')]);
  await expectOnScreen(
    page,
    () => document.querySelector('[data-testid="sign-in-error"]')?.textContent?.includes('access_denied (the user declined to sign in)'),
    [],
    async () => `the denial is not shown: ${await page.evaluate(() => document.body.innerText.slice(0, 500))}`,
  );
  if (new URL(page.url()).search) fail(`the provider's answer stayed in the address bar: ${page.url()}`);
  log("the provider's denial is shown as it gave it");

  // An answer this tab never asked for (a forged link): refused before any code exchange.
  await page.goto(`${base}/oidc/callback?code=forged&state=forged`, { waitUntil: 'load' });
  await byText(page, 'does not belong to a sign-in started in this tab', '[data-testid="sign-in-error"]');
  log('a forged answer is refused without a code exchange');

  // The real thing: to the provider and back to the cluster asked for, with its token.
  const token = await signInThroughProvider(page, cluster);
  if (new URL(page.url()).pathname !== `/clusters/${cluster}` || new URL(page.url()).search) fail(`not back at the cluster asked for: ${page.url()}`);
  const claims = claimsOf(token);
  if (claims.iss !== issuer) fail(`the token in use is not the provider's: ${JSON.stringify(claims)}`);
  log(`signed in through the provider as ${claims.sub} (org ${claims.org_id}); back at the cluster asked for`);
  await shot(page, '01c-signed-in-through-provider');

  // Sign-out ends the provider's session: the next sign-in asks there again.
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), clickText(page, 'Sign out')]);
  await page.waitForSelector('[data-testid="oidc-sign-in"]', { visible: true, timeout: 20_000 });
  if (!page.url().startsWith(base)) fail(`not back at the UI after sign-out: ${page.url()}`);
  if (await page.evaluate(() => sessionStorage.getItem('assisted.token'))) fail('the token outlived sign-out');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid="oidc-sign-in"]')]);
  if (!atProvider()) fail(`signing in again did not go to the provider: ${page.url()}`);
  await byText(page, 'Sign in as demo', 'button');
  log("signed out, and the provider's session ended with it: it asks again");
}

// Cancel and reset: an install cancelled from the cluster screen, the cluster reset, its hosts
// asking to be booted into the discovery image again, and once they are, ready again; all
// live, without a reload.
async function cancelReset(page) {
  const { cluster, url } = await demoClusterWithIso({
    machine_networks: [{ cidr: '192.168.122.0/24' }],
    api_vips: [{ ip: '192.168.122.5' }],
    ingress_vips: [{ ip: '192.168.122.6' }],
  });
  // Slow stages, so the install is still running when Cancel is pressed.
  const fleet = await bootFleet(url, cluster.id, 3, { stageDelay: '3s' });
  await page.goto(base, { waitUntil: 'load' });
  await page.evaluate((t) => sessionStorage.setItem('assisted.token', t), env.UI_TOKEN);
  await page.goto(`${base}/clusters/${cluster.id}`, { waitUntil: 'load' });
  const navigations = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  await waitForStatus(page, 'ready', 120_000);
  await clickText(page, 'Install cluster');
  await waitForStatus(page, 'installing', 60_000);
  await clickText(page, 'Cancel installation');
  await waitForStatus(page, 'cancelled', 60_000);
  log('install cancelled from the cluster screen');
  await shot(page, '08b-cancelled');

  await clickText(page, 'Reset');
  await page.waitForFunction(
    () => {
      const rows = [...document.querySelectorAll('[data-testid^="host-row-"]')];
      return rows.length === 3 && rows.every((r) => r.textContent.includes('resetting-pending-user-action'));
    },
    { timeout: 60_000, polling: 'mutation' },
  );
  const status = await statusText(page);
  if (status === 'cancelled') fail('the cluster stayed cancelled after Reset');
  log(`reset: the cluster is ${status}, every host asks to be booted into the discovery image again`);
  await shot(page, '08c-reset');

  // The user reboots the machines into the discovery image: they register again.
  fleet.kill('SIGTERM');
  await new Promise((resolve) => (fleet.exitCode !== null ? resolve() : fleet.once('exit', resolve)));
  await bootFleet(url, cluster.id, 3);
  await waitForStatus(page, 'ready', 120_000);
  if (navigations.length > 0) fail(`the page navigated: ${navigations.join(', ')}`);
  log('the hosts booted again, registered, and the cluster is ready to install again');
}

const scenarios = {
  flow: () => inBrowser(flow),
  'cancel-reset': () => inBrowser(cancelReset),
  oidc: () => inBrowser(oidc),
  'oidc-refresh': () => inBrowser(oidcRefresh),
  'infra-env': () => inBrowser(infraEnv),
  wizard: () => inBrowser(wizard),
  errors: () => inBrowser(errors),
  'agent-based': () => inBrowser(agentBased),
  latency,
};
try {
  if (!base) fail('UI_BASE is not set');
  if (!scenarios[scenario]) fail(`unknown scenario ${scenario}`);
  await scenarios[scenario]();
  if (accessibility.length > 0) fail(`serious or critical accessibility problems:\n  ${accessibility.join('\n  ')}`);
  log(`PASS ${scenario}`);
} catch (error) {
  log(`FAIL ${scenario}: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill('SIGTERM');
}
