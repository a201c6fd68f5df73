/**
 * The request deadline and its lazily built signal (src/request-deadline.ts): every step that a
 * caller can take on a real `AbortSignal` (read `aborted` and `reason`, `throwIfAborted`, listen,
 * set `onabort`, stop listening) is taken on both, before and after the abort, and what each one
 * heard is compared. The deadline itself runs on jest's fake timers, so nothing waits on a clock.
 */
import { DeadlineExceededError, DeadlineSignal, RequestDeadline } from '../src/request-deadline';

/** What a caller can observe of a signal, and the steps that produce it. */
interface Signal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  onabort: AbortSignal['onabort'];
  addEventListener: AbortSignal['addEventListener'];
  removeEventListener: AbortSignal['removeEventListener'];
}

/** Runs the same script on a signal and its abort, and records what a caller sees. */
function observe(signal: Signal, abort: (reason: unknown) => void, reason: unknown) {
  const heard: string[] = [];
  const thrown = () => {
    try {
      signal.throwIfAborted();
      return 'none';
    } catch (err) {
      return err === reason ? 'the reason' : 'something else';
    }
  };
  const early = (event: Event) => heard.push(`early ${event.type}`);
  const removed = () => heard.push('removed');
  const once = () => heard.push('once');
  signal.addEventListener('abort', early);
  signal.addEventListener('abort', removed);
  signal.addEventListener('abort', once, { once: true });
  signal.removeEventListener('abort', removed);
  signal.onabort = () => heard.push('onabort');
  heard.push(`before: ${String(signal.aborted)}, ${String(signal.reason)}, ${thrown()}`);
  abort(reason);
  abort(new Error('a second abort changes nothing'));
  heard.push(
    `after: ${String(signal.aborted)}, ${thrown()}, same reason ${String(signal.reason === reason)}`,
  );
  signal.addEventListener('abort', () => heard.push('late'));
  return heard;
}

test('a deadline signal answers every caller as a real AbortSignal does', () => {
  const reason = new DeadlineExceededError(1);
  const real = new AbortController();
  const lazy = new DeadlineSignal();
  const expected = observe(real.signal, (r) => real.abort(r), reason);
  expect(expected).toEqual([
    'before: false, undefined, none',
    'early abort',
    'once',
    'onabort',
    'after: true, the reason, same reason true',
  ]);
  expect(observe(lazy, (r) => lazy.abort(r), reason)).toEqual(expected);
});

test('a signal nobody listens to aborts too, and a listener added later hears nothing', () => {
  const signal = new DeadlineSignal();
  const reason = new DeadlineExceededError(1);
  signal.abort(reason);
  expect(signal.aborted).toBe(true);
  expect(() => signal.throwIfAborted()).toThrow(reason);
  const late = jest.fn();
  signal.addEventListener('abort', late);
  expect(late).not.toHaveBeenCalled();
});

describe('RequestDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('aborts at its timeout, then tells, with a DeadlineExceededError', () => {
    const expired = jest.fn();
    const deadline = new RequestDeadline(1_000, expired);
    const listener = jest.fn();
    deadline.signal.addEventListener('abort', listener);
    jest.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    expect(expired).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlineExceededError);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(expired).toHaveBeenCalledWith(deadline.signal.reason);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(() => deadline.signal.throwIfAborted()).toThrow(DeadlineExceededError);
  });

  test('ended before its timeout, it never aborts and leaves no timer', () => {
    const expired = jest.fn();
    const deadline = new RequestDeadline(1_000, expired);
    deadline.end();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(10_000);
    expect(deadline.signal.aborted).toBe(false);
    expect(expired).not.toHaveBeenCalled();
  });
});
