// The HTTP side the fixture servers share: a Node request handed to a web-standard `fetch` handler (the SDK v2
// server's), its answer streamed back; the client going away aborts the handler's request.
export const forward = async (handler, req, res, body) => {
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(key, value)
    else if (Array.isArray(value)) { for (const v of value) headers.append(key, v) }
  }
  const abort = new AbortController()
  res.on("close", () => abort.abort())
  const response = await handler.fetch(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" || body.length === 0 ? undefined : body,
      signal: abort.signal
    })
  )
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()))
  if (response.body === null) return res.end()
  try {
    for await (const chunk of response.body) res.write(chunk)
  } catch {
    // the client went away
  }
  res.end()
}
