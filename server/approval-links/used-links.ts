/** Who used a link, how and when. */
export interface LinkUse {
  readonly by: string;
  readonly decision: string;
  readonly at: string;
}

/** How many used links a server remembers (the oldest are forgotten first). */
const rememberedLinks = 10_000;

/**
 * The links this server saw used, by token id, so a second use is refused before the run is asked.
 * Only a shortcut: several servers may serve the same links and a server forgets on restart, so the
 * run's own answer (`already_decided`, naming who and when) is what makes a link single-use.
 */
export class UsedLinks {
  private readonly uses = new Map<string, LinkUse>();

  get(jti: string): LinkUse | undefined {
    return this.uses.get(jti);
  }

  add(jti: string, use: LinkUse): void {
    this.uses.set(jti, use);
    if (this.uses.size > rememberedLinks) {
      const oldest = this.uses.keys().next().value;
      if (oldest !== undefined) this.uses.delete(oldest);
    }
  }
}
