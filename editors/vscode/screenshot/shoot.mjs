// Drives VS Code (code-server) in headless Chromium as a user would, and
// saves two screenshots (run.sh sets everything up):
//   vscode.png          Search.java after `perfls check`: SPL highlighting in
//                       the @SPL strings, the figures and verdicts as inlay
//                       hints and code lenses, the violated formula's
//                       diagnostic, and the hover on linearSearch;
//   vscode-quickfix.png a misspelt method in a formula, its diagnostic and
//                       the quick fix menu (Ctrl+.).
// Each step waits for what it needs to see on the page, so a missing
// feature fails the run with the step's name instead of a wrong picture.
// Usage: node shoot.mjs --url URL --chromium PATH --out DIR
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import puppeteer from 'puppeteer-core';

const { values: opt } = parseArgs({
  options: { url: { type: 'string' }, chromium: { type: 'string' }, out: { type: 'string' } },
});
if (!opt.url || !opt.chromium || !opt.out) {
  console.error('usage: node shoot.mjs --url URL --chromium PATH --out DIR');
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const browser = await puppeteer.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
  defaultViewport: { width: 1500, height: 860 },
});
let step = 'start';
const page = await browser.newPage();
try {
  const ctrl = async (key) => {
    await page.keyboard.down('Control');
    await page.keyboard.press(key);
    await page.keyboard.up('Control');
  };
  // waitText waits until an element matching selector contains text.
  const waitText = (selector, text, timeout = 60000) =>
    page.waitForFunction(
      (sel, t) => [...document.querySelectorAll(sel)].some((e) => e.textContent.replace(/\u00a0/g, ' ').includes(t)),
      { timeout, polling: 250 },
      selector,
      text,
    );
  // wordAt is the centre of the token `word` on the editor line containing
  // lineText (Monaco renders spaces as no-break spaces).
  const wordAt = async (lineText, word) => {
    const at = await page.evaluate(
      (lt, w) => {
        const norm = (s) => s.replace(/\u00a0/g, ' ');
        for (const line of document.querySelectorAll('.monaco-editor .view-line')) {
          if (!norm(line.textContent).includes(lt)) continue;
          for (const span of line.querySelectorAll('span span')) {
            if (norm(span.textContent).trim() === w) {
              const r = span.getBoundingClientRect();
              return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
            }
          }
        }
        return null;
      },
      lineText,
      word,
    );
    if (!at) throw new Error(`no token ${word} on a visible line containing ${lineText}`);
    return at;
  };

  step = 'open the folder';
  await page.goto(opt.url, { waitUntil: 'networkidle2', timeout: 90000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });

  // The user trusts the folder in VS Code's own prompt, which lets the
  // extension start perfls with measuring allowed (docs/security.md).
  step = 'trust the folder';
  await page.locator('::-p-text(Yes, I trust the authors)').setTimeout(60000).click();
  await page.waitForFunction(() => !document.querySelector('.monaco-dialog-box'), { timeout: 30000 });

  step = 'open Search.java (quick open)';
  await page.click('.command-center-center');
  await page.waitForSelector('.quick-input-widget input', { visible: true });
  await page.keyboard.type('Search.java');
  await waitText('.quick-input-list', 'Search.java');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.monaco-editor .view-lines');
  await page.mouse.move(1400, 300); // away from the command centre's tooltip

  step = 'wait for the recorded verdicts (lenses, inlay hints, diagnostics)';
  await waitText('.monaco-editor .codelens-decoration', 'Check 1 formula');
  await waitText('.monaco-editor .view-lines', 'violated');
  await waitText('.monaco-editor .view-lines', '≈ ');
  await page.waitForSelector('.monaco-editor .squiggly-warning');

  step = 'hide the side bar and scroll to line 15';
  await ctrl('KeyB');
  await ctrl('KeyG');
  await page.waitForSelector('.quick-input-widget input', { visible: true });
  await page.keyboard.type('15');
  await page.keyboard.press('Enter');
  for (let i = 0; i < 14; i++) await ctrl('ArrowDown'); // scroll the view one line each
  await sleep(500);

  step = 'hover linearSearch';
  let at = await wordAt('public static int linearSearch', 'linearSearch');
  await page.mouse.move(at.x, at.y);
  await waitText('.monaco-hover', 'time/op');
  await sleep(500); // the hover fades in
  await page.screenshot({ path: path.join(opt.out, 'vscode.png') });

  step = 'misspell binarySearch in the violated formula';
  await page.keyboard.press('Escape');
  await page.mouse.move(1400, 300);
  await sleep(500);
  at = await wordAt('#binarySearch[lookups]', 'binarySearch');
  await page.mouse.click(at.x, at.y);
  await ctrl('KeyD'); // selects the word under the cursor
  await page.keyboard.type('binarySerch');
  await page.keyboard.press('Escape'); // closes the completion list and the match highlights
  await page.waitForSelector('.monaco-editor .squiggly-error');

  step = 'open the quick fix menu (Ctrl+.)';
  await ctrl('Period');
  await waitText('.action-widget', 'Change to binarySearch');
  await sleep(500);
  await page.screenshot({ path: path.join(opt.out, 'vscode-quickfix.png') });
} catch (err) {
  const shot = path.join(os.tmpdir(), 'shoot-failed.png');
  await page.screenshot({ path: shot }).catch(() => {});
  console.error(`shoot.mjs: ${step}: ${err.message} (the page then: ${shot})`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
