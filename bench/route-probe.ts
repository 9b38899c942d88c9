/**
 * Whether the server routes `path` at all: an unauthenticated POST to a route that exists is
 * refused (401/400/403), while a path no router knows answers 404 or 405.
 */
export async function routeExists(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<boolean> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{}',
  });
  await response.arrayBuffer();
  return response.status !== 404 && response.status !== 405;
}
