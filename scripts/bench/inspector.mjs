// The Worker's inspector under `wrangler dev --inspector-port`: its CPU profile (scripts/profile.mjs), its heap (moving.mjs).
import WebSocket from 'ws'

/** The DevTools protocol on the Worker's inspector (wrangler dev's proxy lists the Worker at /json). */
export async function connect(portNumber) {
  const [target] = await (await fetch(`http://127.0.0.1:${portNumber}/json`)).json()
  const socket = new WebSocket(target.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  const waiting = new Map()
  let next = 1
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    const pending = waiting.get(message.id)
    if (!pending) return
    waiting.delete(message.id)
    if (message.error) pending.reject(new Error(`${message.error.message}`))
    else pending.resolve(message.result)
  })
  return {
    send(method, params = {}) {
      const id = next++
      socket.send(JSON.stringify({ id, method, params }))
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }))
    },
    close: () => socket.close(),
  }
}

/**
 * The Worker's live JavaScript heap in MiB, read through its inspector after a full collection, so that what it holds
 * shows rather than what it has yet to collect. The inspector collects only while the Worker is at work (an idle
 * Worker's answer never comes): an answer that does not come in 10 s is no figure (NaN).
 */
export const liveHeapMiB = (inspector) =>
  Promise.race([
    inspector
      .send('HeapProfiler.collectGarbage')
      .then(() => inspector.send('Runtime.getHeapUsage'))
      .then(({ usedSize }) => Math.round((usedSize / 1024 / 1024) * 10) / 10),
    new Promise((resolve) => setTimeout(() => resolve(Number.NaN), 10_000)),
  ])
