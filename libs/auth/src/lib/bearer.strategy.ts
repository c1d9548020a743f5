import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { TokenService } from './token.service';
import { AuthError } from './auth.errors';
import type { Principal } from './principal';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(@Inject(TokenService) private readonly tokens: TokenService) {
    // With the request, to reuse the verification the rate-limit hook already made of the same secret.
    super({ realm: 'assistant', passReqToCallback: true });
  }

  async validate(request: object, secret: string): Promise<Principal> {
    const principal = await this.tokens.verifyForRequest(request, secret);
    if (!principal)
      throw AuthError.invalidToken('the token is not valid: it is malformed, unknown, revoked or expired');
    return principal;
  }
}
