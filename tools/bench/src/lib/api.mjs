// Calls to our server's API that prepare a bench run, shared by http-bench.mjs and perf-report.mjs.

/** Creates `count` discussions through POST /api/v1/discussions (titles "Bench discussion <i>"). */
export async function seedDiscussions(baseUrl, token, count) {
  for (let i = 1; i <= count; i++) {
    const response = await fetch(`${baseUrl}/api/v1/discussions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `Bench discussion ${i}` }),
    });
    if (response.status !== 201)
      throw new Error(
        `seeding: POST /api/v1/discussions answered ${response.status}: ${await response.text()}`,
      );
  }
}
