// A throw-away certificate authority for the fake voice gateway. @discordjs/voice always dials
// `wss://` with no TLS options, so the only clean way to make it trust a loopback server is to add
// a test CA to the process's default trust store. `tls.setDefaultCACertificates` (Node >= 22.19)
// does that at run time: verification stays ON, only one extra root is trusted. Other processes
// (an Electron app under `npm run demo`) get the CA file through NODE_EXTRA_CA_CERTS instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';

export interface TestCertificates {
  /** PEM of the test CA: the only thing a client has to trust. */
  caPem: string;
  /** Where the CA PEM was written (for NODE_EXTRA_CA_CERTS in child processes). */
  caPath: string;
  /** Leaf certificate and key for `localhost` / 127.0.0.1, signed by the CA. */
  certPem: string;
  keyPem: string;
}

let pending: Promise<TestCertificates> | null = null;

/** Generate (once per process) a CA and a localhost certificate signed by it. */
export function testCertificates(): Promise<TestCertificates> {
  pending ??= createCertificates();
  return pending;
}

async function createCertificates(): Promise<TestCertificates> {
  const notAfterDate = new Date(Date.now() + 7 * 24 * 3600 * 1000);
  const ca = await generate([{ name: 'commonName', value: 'Live Voice Bridge test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const dir = join(tmpdir(), 'lvb-fake-discord');
  mkdirSync(dir, { recursive: true });
  const caPath = join(dir, `test-ca-${process.pid}.pem`);
  writeFileSync(caPath, ca.cert);
  return { caPem: ca.cert, caPath, certPem: leaf.cert, keyPem: leaf.private };
}

let trusted = false;

/**
 * Add the test CA to this process's default trust store (idempotent). Test and demo processes only:
 * product code never calls this.
 */
export async function trustTestCertificates(): Promise<TestCertificates> {
  const certs = await testCertificates();
  if (!trusted) {
    if (typeof tls.setDefaultCACertificates !== 'function') {
      throw new Error(
        'This Node lacks tls.setDefaultCACertificates; start it with NODE_EXTRA_CA_CERTS=' + certs.caPath,
      );
    }
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), certs.caPem]);
    trusted = true;
  }
  return certs;
}
