// A terminal session whose "shell" is the test (no engine): what the browser typed is
// `typed`, `stream.push()` is the shell's output, `closed` counts the bridge's close() calls.
// Used by the bridge's tests (src/http/terminal-socket.test.ts) and, through a driver the test
// gives terminals to (`withTerminals`), by the route's (routes/compute/terminal-sessions.test.ts).
import { Duplex } from 'node:stream';
import type { ComputeDriver, TerminalSession, TerminalSize } from '../../src/drivers/types.ts';

export class FakeSession implements TerminalSession {
  typed = '';
  sizes: TerminalSize[] = [];
  closed = 0;
  readonly stream: Duplex;
  /** how many times the bridge paused the output */
  pauses = 0;

  constructor() {
    const self = this;
    this.stream = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        self.typed += chunk.toString('utf8');
        cb();
      },
    });
    const pause = this.stream.pause.bind(this.stream);
    this.stream.pause = () => {
      this.pauses++;
      return pause();
    };
  }

  async resize(size: TerminalSize): Promise<void> {
    this.sizes.push(size);
  }

  async close(): Promise<void> {
    this.closed++;
    this.stream.destroy();
  }
}

/** Gives `driver` terminals (a fake session each, recorded in `opened` with the instance it was opened on). */
export function withTerminals(driver: ComputeDriver, opened: { instanceId: string; session: FakeSession }[] = []): { instanceId: string; session: FakeSession }[] {
  driver.terminal = async (instanceId: string, size: TerminalSize) => {
    const session = new FakeSession();
    session.sizes.push(size);
    opened.push({ instanceId, session });
    return session;
  };
  return opened;
}
