import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { TokenService } from './token.service';
import { AuthError } from './auth.errors';
import { BEARER_STRATEGY } from './bearer-authentication';
import type { Principal } from './principal';

/** Verifies bearer tokens for passport; run once per request through `authenticateBearer`. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(@Inject(TokenService) private readonly tokens: TokenService) {
    super({ realm: 'assistant' });
  }

  async validate(secret: string): Promise<Principal> {
    const principal = await this.tokens.verify(secret);
    if (!principal)
      throw AuthError.invalidToken('the token is not valid: it is malformed, unknown, revoked or expired');
    return principal;
  }
}
