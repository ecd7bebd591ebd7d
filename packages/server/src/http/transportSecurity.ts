/**
 * `Strict-Transport-Security` for a service served over https (`PUBLIC_URL`): browsers must never come back
 * over plain http. Undefined over http (a development or test server), where the header would be wrong.
 *
 * `server.ts` sets it on the raw response as each request arrives, before the start-up handler or the app
 * answers: Node merges it into whatever head the answer writes. An app `onSend` hook did this before, and a
 * hook of the root runs on every answer, so with `PUBLIC_URL=https://…` every token validation paid an async
 * hook run for one constant header (docs/performance-http.md, round 10).
 */
export function strictTransportSecurity(publicUrl: string): string | undefined {
  return publicUrl.startsWith('https:') ? 'max-age=31536000; includeSubDomains' : undefined;
}
