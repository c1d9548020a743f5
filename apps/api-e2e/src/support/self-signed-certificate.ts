import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A self-signed TLS certificate for `localhost` and 127.0.0.1, made with node's crypto alone (no openssl, no
 * package): an ECDSA P-256 key and an X.509 v3 certificate written in DER by hand. A test serves https with it and
 * lets a child process trust it through NODE_EXTRA_CA_CERTS, as an operator would trust a private CA.
 */
export interface SelfSignedCertificate {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PKCS#8 PEM. */
  key: string;
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const der = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const sequence = (...parts: Buffer[]) => der(0x30, ...parts);
const set = (...parts: Buffer[]) => der(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => der(0xa0 + n, ...parts);
const octets = (value: Buffer) => der(0x04, value);
const bits = (value: Buffer) => der(0x03, Buffer.concat([Buffer.from([0]), value]));
const TRUE = der(0x01, Buffer.from([0xff]));

function integer(value: Buffer): Buffer {
  return der(0x02, value[0] & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let high = arc >> 7; high > 0; high >>= 7) base128.unshift((high & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return der(0x17, Buffer.from(text, 'ascii'));
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

export function selfSignedCertificate(validDays = 1): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from('localhost')))));
  const now = Date.now();
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(16)),
    ECDSA_WITH_SHA256,
    name,
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + validDays * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        // basicConstraints CA:TRUE, so that the certificate can be its own trust anchor.
        sequence(oid('2.5.29.19'), TRUE, octets(sequence(TRUE))),
        // subjectAltName: DNS localhost, IP 127.0.0.1.
        sequence(
          oid('2.5.29.17'),
          octets(sequence(der(0x82, Buffer.from('localhost')), der(0x87, Buffer.from([127, 0, 0, 1])))),
        ),
      ),
    ),
  );
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bits(sign('sha256', tbs, privateKey)));
  const lines = certificate.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
