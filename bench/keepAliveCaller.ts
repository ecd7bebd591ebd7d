import net from 'node:net';

/**
 * One closed-loop caller of a benchmark: one keep-alive HTTP/1.1 connection that sends a prepared request
 * (head and body in one buffer) and reads the answer's status and body, nothing else. The benchmarks'
 * load generator shares the machine's cores with the service it measures; Node's HTTP client (a
 * `ClientRequest`, an `IncomingMessage`, their streams and header objects per call) cost it 70–140 µs of
 * CPU per call, as much as a third of what dauth spends answering a consumption, so a heavy generator
 * measured the generator as much as dauth. This one costs a socket write and a string scan per call
 * (docs/performance-content.md, round 3). It expects what Fastify answers: `content-length`, no chunked
 * encoding, one answer per request.
 */
export class KeepAliveCaller {
  readonly #socket: net.Socket;
  #received = '';
  #pending: { resolve(answer: { status: number; body: string }): void; reject(err: Error): void } | undefined;
  #closed = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    // latin1: one character per byte, so `content-length` counts characters (the answers are JSON).
    socket.setEncoding('latin1');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.#onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      this.#pending?.reject(new Error('connection closed'));
      this.#pending = undefined;
    });
  }

  static connect(host: string, port: number): Promise<KeepAliveCaller> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port }, () => {
        socket.off('error', reject);
        resolve(new KeepAliveCaller(socket));
      });
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends `request` (a whole HTTP/1.1 request) and resolves with the answer; one at a time. */
  send(request: Buffer): Promise<{ status: number; body: string }> {
    if (this.#closed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #onData(chunk: string): void {
    this.#received += chunk;
    const headEnd = this.#received.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const lengthAt = this.#received.slice(0, headEnd).toLowerCase().indexOf('\r\ncontent-length:');
    if (lengthAt < 0) {
      this.#pending?.reject(new Error('answer without content-length'));
      this.#pending = undefined;
      this.close();
      return;
    }
    const length = parseInt(
      this.#received.slice(lengthAt + 17, this.#received.indexOf('\r\n', lengthAt + 2)),
      10,
    );
    const end = headEnd + 4 + length;
    if (this.#received.length < end) return;
    const status = parseInt(this.#received.slice(9, 12), 10);
    const body = Buffer.from(this.#received.slice(headEnd + 4, end), 'latin1').toString('utf8');
    this.#received = this.#received.slice(end);
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve({ status, body });
  }
}

/** A POST of a JSON body as one buffer, for `KeepAliveCaller.send`. */
export function jsonPost(url: URL, body: string): Buffer {
  const payload = Buffer.from(body);
  const head =
    `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n` +
    `content-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), payload]);
}
