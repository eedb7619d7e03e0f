/**
 * PEM text and files for the TLS option tests (`file://` values are read from disk).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const PEM = '-----BEGIN CERTIFICATE-----\nMIIBconformanceTESTonly\n-----END CERTIFICATE-----\n';
export const CLIENT_PEM = PEM.replaceAll('CERTIFICATE', 'CLIENT CERTIFICATE');

/** A CA, a client certificate and a key in a temporary folder removed after the file's tests. */
export function useTlsFiles(): { caPath: string; certPath: string; keyPath: string; missing: string } {
  const dir = mkdtempSync(join(tmpdir(), 'queuedev-tls-'));
  const files = {
    caPath: join(dir, 'ca.pem'),
    certPath: join(dir, 'cert.pem'),
    keyPath: join(dir, 'key.pem'),
    missing: join(dir, 'does-not-exist.pem'),
  };
  writeFileSync(files.caPath, PEM);
  writeFileSync(files.certPath, CLIENT_PEM);
  writeFileSync(files.keyPath, '-----BEGIN PRIVATE KEY-----\nKEYtest\n-----END PRIVATE KEY-----\n');
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return files;
}
