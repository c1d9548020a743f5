import Fastify from 'fastify';
import { signedInPage, type SignedInAccount } from './signed-in';

describe('a page for signed-in browsers', () => {
  async function serve(accountOf: SignedInAccount) {
    const app = Fastify();
    for (const route of [
      signedInPage(accountOf, 'GET', '/profile/connections/new', async (_q, reply, userId) =>
        reply.send(userId),
      ),
      signedInPage(accountOf, 'POST', '/profile/tokens', async (_q, reply, userId) => reply.send(userId)),
    ]) {
      app.route({ method: route.method, url: route.path, handler: (q, r) => route.handle(q, r) });
    }
    await app.ready();
    return app;
  }

  it('hands the signed-in account to the page', async () => {
    const app = await serve(async () => 'usr_1');

    const res = await app.inject({ method: 'GET', url: '/profile/connections/new?family=mail' });

    expect(res.body).toBe('usr_1');
  });

  it('sends a signed-out browser to sign in, and back to the page it asked for by its address', async () => {
    const app = await serve(async () => null);

    const res = await app.inject({ method: 'GET', url: '/profile/connections/new?family=mail' });

    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/signin?return_to=${encodeURIComponent('/profile/connections/new?family=mail')}`,
    );
  });

  it('brings a signed-out form post back to the profile, not to the form’s target', async () => {
    const app = await serve(async () => null);

    const res = await app.inject({ method: 'POST', url: '/profile/tokens' });

    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?return_to=%2Fprofile');
  });
});
