/**
 * The dashboard's cross-origin rule for POST requests (the rule of Go's
 * `http.CrossOriginProtection`), case by case on the request headers alone.
 */
import { describe, expect, it } from 'vitest';
import { crossOriginRefusal } from './http.js';

const HOST = 'dashboard.test:8080';

const CASES: [string, Record<string, string>, 'pass' | 'refuse'][] = [
  // Sec-Fetch-Site decides whenever it is present, whatever Origin says.
  ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin', Origin: 'http://dashboard.test:8080' }, 'pass'],
  [
    'Sec-Fetch-Site: same-origin with an Origin a proxy rewrote',
    { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://public.example' },
    'pass',
  ],
  ['Sec-Fetch-Site: none (the user navigated)', { 'Sec-Fetch-Site': 'none' }, 'pass'],
  ['Sec-Fetch-Site: same-site', { 'Sec-Fetch-Site': 'same-site', Origin: 'http://other.dashboard.test' }, 'refuse'],
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.test' }, 'refuse'],
  [
    'Sec-Fetch-Site: cross-site with an Origin matching Host',
    { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://dashboard.test:8080' },
    'refuse',
  ],
  ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }, 'refuse'],
  ['an unknown Sec-Fetch-Site value', { 'Sec-Fetch-Site': 'same-ish', Origin: 'http://dashboard.test:8080' }, 'refuse'],
  // Without Sec-Fetch-Site (older browsers), Origin's host[:port] must equal Host.
  ['Origin matching Host', { Origin: 'http://dashboard.test:8080' }, 'pass'],
  [
    'Origin matching Host in another letter case',
    { Origin: 'http://Dashboard.Test:8080', Host: 'DASHBOARD.test:8080' },
    'pass',
  ],
  // The scheme is not compared: Host carries none (Go's rule too).
  ['Origin matching Host with another scheme', { Origin: 'https://dashboard.test:8080' }, 'pass'],
  ['Origin of another host', { Origin: 'http://evil.test:8080' }, 'refuse'],
  ['Origin of another port', { Origin: 'http://dashboard.test:9090' }, 'refuse'],
  ['Origin without the port Host names', { Origin: 'http://dashboard.test' }, 'refuse'],
  ['Origin: null (an opaque origin)', { Origin: 'null' }, 'refuse'],
  ['Origin without a Host header', { Origin: 'http://dashboard.test:8080', Host: '' }, 'refuse'],
  // Neither header: not a browser (curl, a scheduler); the mount path's own check applies.
  ['no Sec-Fetch-Site and no Origin', {}, 'pass'],
  ['empty Sec-Fetch-Site and Origin', { 'Sec-Fetch-Site': '', Origin: '' }, 'pass'],
];

describe('crossOriginRefusal', () => {
  it.each(CASES)('%s: %j → %s', (_, headers, expected) => {
    const all = new Headers({ Host: HOST, ...headers });
    if (all.get('host') === '') all.delete('host');
    const refusal = crossOriginRefusal(all);
    if (expected === 'pass') expect(refusal).toBeNull();
    else expect(refusal).toEqual(expect.any(String));
  });

  it('says which header refused the request', () => {
    expect(crossOriginRefusal(new Headers({ 'Sec-Fetch-Site': 'cross-site' }))).toBe('Sec-Fetch-Site is cross-site');
    expect(crossOriginRefusal(new Headers({ Host: HOST, Origin: 'http://evil.test' }))).toBe(
      `Origin http://evil.test does not match Host ${HOST}`,
    );
    expect(crossOriginRefusal(new Headers({ Origin: 'http://evil.test' }))).toBe(
      'Origin http://evil.test does not match Host (absent)',
    );
  });
});
