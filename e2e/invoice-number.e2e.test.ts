/**
 * The example page's invoice numbers in real Chromium: the page defines a yearly sequence written
 * `INV-{YYYY}-{seq:6}`, shows the last number issued live (a subscription), and takes the next one
 * on a click, showing it exactly as the service wrote it. A number taken by another client (a back
 * end, through the API) shows on the page too, with no reload.
 */
import { pageBed } from './support/page-bed';

const bed = pageBed();

test('the page takes formatted invoice numbers and shows the last one live', async () => {
  const page = await bed.browser.newPage();
  await page.goto(bed.site.pageUrl(`${bed.service.url}/graphql`));
  await page.waitForSelector('#invoice-number[data-live="true"]');
  expect(await page.textContent('#invoice-number')).toBe('–');

  await page.click('#next-invoice');
  await page.waitForSelector('#taken-invoice[data-state="ok"]');
  const taken = await page.textContent('#taken-invoice');
  expect(taken).toMatch(/^INV-\d{4}-000001$/);
  await page.waitForFunction(
    (expected) => document.querySelector('#invoice-number')?.textContent === expected,
    taken,
  );

  // Another client of the same namespace (the page acts as `anonymous`, as a request without a
  // token does outside production) takes the next number through the API: the page shows it.
  const other = await bed.service.graphql(
    'mutation { allocateSequence(name: "page-invoice") { range { formatted } error { code } } }',
  );
  const [formatted] = other.body.data.allocateSequence.range.formatted;
  expect(formatted).toBe(taken!.replace(/000001$/, '000002'));
  await page.waitForFunction(
    (expected) => document.querySelector('#invoice-number')?.textContent === expected,
    formatted,
  );
  await page.close();
});
