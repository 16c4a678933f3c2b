/** Where the local runtime reports what it does; the functions log through their own logger. */
export interface RuntimeLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

const describe = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));

export const consoleLog: RuntimeLog = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(`warning: ${message}`),
  error: (message, error) => console.error(error === undefined ? `error: ${message}` : `error: ${message}\n${describe(error)}`),
};
