/**
 * Keeps everything the tests print (the console, and the functions' log lines output-capture.ts
 * sends there) in one file per run, each entry under the test it came from, and names the file
 * once the run ends. The terminal shows only the logs of failing tests (`silent: 'passed-only'`).
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { UserConsoleLog } from 'vitest';
import type { Reporter, Vitest } from 'vitest/node';

export class LogFileReporter implements Reporter {
  private vitest: Vitest | undefined;
  private file: WriteStream | undefined;

  constructor(private readonly path: string) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    this.file = createWriteStream(this.path);
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    const content = log.content.endsWith('\n') ? log.content : `${log.content}\n`;
    this.file?.write(`${new Date(log.time).toISOString()} ${log.type} | ${this.sourceOf(log)}\n${content}`);
  }

  async onTestRunEnd(): Promise<void> {
    const file = this.file;
    if (!file) return;
    this.file = undefined;
    await new Promise<void>((resolveEnd) => file.end(resolveEnd));
    this.vitest?.logger.log(`Logs of this run: ${relative(process.cwd(), this.path)}`);
  }

  /** The test, suite or file that printed it; vitest names the file when no test was running. */
  private sourceOf(log: UserConsoleLog): string {
    const entity = log.taskId ? this.vitest?.state.getReportedEntityById(log.taskId) : undefined;
    if (!entity) return log.taskId ?? 'unknown test';
    return entity.type === 'module' ? entity.relativeModuleId : `${entity.module.relativeModuleId} > ${entity.fullName}`;
  }
}
