/**
 * Setup file: what runs in a test worker and writes to process.stdout or process.stderr itself
 * (the functions' Powertools logger and metrics do, past the console) goes through the console,
 * where vitest files it under the test that is running: printed if that test fails, and kept in
 * the run's log file (see log-file-reporter.ts) either way. A test that spies on
 * process.stdout.write still sees every chunk: its spy wraps this writer.
 */
type Write = typeof process.stdout.write;
type WriteCallback = (error?: Error | null) => void;

function throughConsole(print: (text: string) => void): Write {
  return ((chunk: string | Uint8Array, encodingOrCallback?: BufferEncoding | WriteCallback, callback?: WriteCallback) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    // The console ends what it prints with a newline of its own.
    print(text.endsWith('\n') ? text.slice(0, -1) : text);
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (done) process.nextTick(done);
    return true;
  }) as Write;
}

// The console is looked up on each write: vitest's, which sends what it prints to the reporters.
process.stdout.write = throughConsole((text) => console.log(text));
process.stderr.write = throughConsole((text) => console.error(text));
