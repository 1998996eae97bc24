import { seqToAnnounce } from '../../workflows/state/event-announcements';

const log = (lastSeq: number) => ({ lastSeq });

describe('seqToAnnounce', () => {
  it('announces the newest seq once the log grew past the last announcement', () => {
    expect(seqToAnnounce({ log: log(7), announcedSeq: 4, localCallsInFlight: 0 })).toBe(7);
  });

  it('announces nothing when the log did not grow', () => {
    expect(seqToAnnounce({ log: log(4), announcedSeq: 4, localCallsInFlight: 0 })).toBeUndefined();
    expect(seqToAnnounce({ log: undefined, announcedSeq: 0, localCallsInFlight: 0 })).toBeUndefined();
  });

  it('waits while a local activity of the run is in flight: its workflow task goes on', () => {
    expect(seqToAnnounce({ log: log(7), announcedSeq: 4, localCallsInFlight: 1 })).toBeUndefined();
  });

  it('announces in the activation that ends the execution, whatever is still in flight', () => {
    expect(seqToAnnounce({ log: log(7), announcedSeq: 4, localCallsInFlight: 1 }, true)).toBe(7);
  });
});
