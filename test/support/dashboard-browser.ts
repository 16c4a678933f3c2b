/**
 * The merchant dashboard in a real browser, as its people use it: the codes of their authenticator
 * apps, each taken once; signing in; joining from an invitation; and forms posted from a browser's
 * own session, as a tampered page or a script would post them.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { en } from '../../shared/dashboard/i18n/en.js';
import { totpCode, totpStep } from '../../shared/domain/dashboard/totp.js';
import { AUDIT_VIEWPORTS, collectPageErrors } from './browser.js';

/** A person of the dashboard as their password manager and authenticator app know them. */
export interface Person {
  email: string;
  password: string;
  totpKey: string;
  /** The last TOTP step whose code was taken: the gateway takes a code once. */
  lastStep: number;
  recoveryCodes: string[];
}

export interface OpenPage {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** The demo owner `npm start` prints: enrolled before the runtime said it was ready, so its code of this step is taken. */
export const demoOwnerOf = (gateway: { owner: { email: string; password: string; totpKey: string } }): Person => ({ ...gateway.owner, lastStep: totpStep(new Date()), recoveryCodes: [] });

/** The code the person's app shows now, or the next one if now's was taken; a recovery code when both were. */
export function nextCode(person: Person): string {
  const now = totpStep(new Date());
  const step = Math.max(now, person.lastStep + 1);
  if (step > now + 1) {
    const recovery = person.recoveryCodes.shift();
    if (!recovery) throw new Error(`${person.email} has no code left to sign in with before the next step`);
    return recovery;
  }
  person.lastStep = step;
  return totpCode(person.totpKey, step);
}

/** The person's next code, once the app shows one not taken: within 30 seconds. */
export async function freshCode(person: Person): Promise<string> {
  while (person.lastStep + 1 > totpStep(new Date()) + 1) await new Promise((resolve) => setTimeout(resolve, 1000));
  const step = Math.max(totpStep(new Date()), person.lastStep + 1);
  person.lastStep = step;
  return totpCode(person.totpKey, step);
}

/**
 * The browser's reports since the last look, but those of pages answered with a 4xx status, which
 * the tests expect and check themselves; anything else (a refused style, a script error, a 500) is a fault.
 */
export const unexpected = (errors: string[]): string[] => errors.splice(0).filter((error) => !/^Failed to load resource: the server responded with a status of 4\d\d /.test(error));

/** The rows of the table in the page's section headed `heading`, or of the page's only table. */
export const tableRows = (page: Page, heading?: string) => (heading ? page.locator('section', { has: page.getByRole('heading', { name: heading }) }) : page.locator('main')).locator('tbody tr');

/** The CSRF token of the page's session, as its sign-out form carries it. */
export const csrfOf = async (page: Page): Promise<string> => page.locator('header form[action$="/dashboard/sign-out"] input[name=csrf]').first().inputValue();

/**
 * Takes the invitation open in `page` as its person does: the key read off the page into the app,
 * a strong password, the app's code; resolves once the recovery codes are shown, the person
 * signed in, with what they now hold.
 */
export async function acceptInvitation(page: Page, email: string): Promise<Person> {
  const totpKey = /^Key: ([A-Z2-7]{32})$/.exec((await page.locator('main .mono').textContent()) ?? '')?.[1];
  if (!totpKey) throw new Error(`The invitation of ${email} shows no authenticator key`);
  const password = `${randomBytes(12).toString('base64url')}-Kx7`;
  const step = totpStep(new Date());
  await page.getByLabel(en['join.password']).fill(password);
  await page.getByLabel(en['join.passwordAgain']).fill(password);
  await page.getByLabel(en['join.code']).fill(totpCode(totpKey, step));
  await page.getByRole('button', { name: en['join.submit'], exact: true }).click();
  await page.getByRole('heading', { name: en['join.recoveryTitle'], level: 1 }).waitFor();
  const recoveryCodes = await page.locator('ol.codes li').allTextContents();
  return { email, password, totpKey, lastStep: step, recoveryCodes };
}

/** The dashboard of the gateway at `baseUrl`, in `browser`. */
export class DashboardBrowser {
  constructor(
    private readonly browser: Browser,
    private readonly baseUrl: string,
  ) {}

  /** A dashboard page's URL. */
  url(page: string): string {
    return `${this.baseUrl}/dashboard/${page}`;
  }

  /** A browser of its own (cookies included), at the desktop width. */
  async openPage(options: { javaScriptEnabled?: boolean } = {}): Promise<OpenPage> {
    const context = await this.browser.newContext({ viewport: AUDIT_VIEWPORTS[1], javaScriptEnabled: options.javaScriptEnabled ?? true });
    const page = await context.newPage();
    return { context, page, errors: collectPageErrors(page) };
  }

  /** Fills and sends the sign-in form; resolves to the answer to the form (before its redirect). */
  async submitSignIn(page: Page, fields: { email: string; password: string; code: string }): Promise<Response> {
    await page.goto(this.url('sign-in'));
    await page.getByLabel('E-mail', { exact: true }).fill(fields.email);
    await page.getByLabel('Password', { exact: true }).fill(fields.password);
    await page.getByLabel(en['signIn.code']).fill(fields.code);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST' && response.url() === this.url('sign-in')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await page.waitForLoadState();
    return answer;
  }

  /** Signs the person in with their next code (or `code`); resolves once the overview shows. */
  async signIn(page: Page, person: Person, code = nextCode(person)): Promise<Response> {
    const answer = await this.submitSignIn(page, { email: person.email, password: person.password, code });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    return answer;
  }

  /** A dashboard form posted from the browser's own session, as a tampered page or a script would post it. */
  async postForm(opened: OpenPage, page: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const response = await opened.context.request.post(this.url(page), { form, headers, maxRedirects: 0 });
    return { status: response.status(), text: await response.text() };
  }
}
