/** The callbacks queue in memory: the ids of the outbox entries handed to it, in order. */
export class MemoryCallbackQueue {
  readonly published: string[] = [];

  async publish(callbackIds: string[]): Promise<number> {
    this.published.push(...callbackIds);
    return callbackIds.length;
  }
}
