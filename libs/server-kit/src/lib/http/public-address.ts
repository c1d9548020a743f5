import { API_PREFIX } from '@assistant/contracts';

/** The URL a server listening on `host`:`port` is reached at from this machine. */
export function listeningUrl(host: string, port: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  const shown = bracketed === '0.0.0.0' || bracketed === '[::]' ? '127.0.0.1' : bracketed;
  return `http://${shown}:${port}`;
}

/**
 * Where users and third-party apps reach this server: `ASSISTANT_PUBLIC_URL`, else the address it listens on
 * (known once it listens). The OAuth issuer and this API's resource identifier (the audience its access tokens
 * must name) are derived from it, never from a request's Host header, which a client chooses.
 */
export class PublicAddress {
  private listening?: string;

  /** `planned`: where it will listen as configured (its real port replaces it once it listens, for port 0). */
  constructor(
    private readonly configured: string | undefined,
    private readonly planned: string,
  ) {}

  /** Called once the server listens, with the address it listens on. */
  listeningAt(url: string): void {
    this.listening = url;
  }

  get url(): string {
    return (this.configured ?? this.listening ?? this.planned).replace(/\/+$/, '');
  }

  /** This API's resource identifier (RFC 8707), the audience of the access tokens it accepts. */
  get apiResource(): string {
    return `${this.url}${API_PREFIX}`;
  }
}
