import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { sendUntilProcessed } from '../../client/unprocessed-update';

const unprocessed = () => new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ message: "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker." }));

describe('an update no worker processed', () => {
  it('is sent again (it never entered history), and its answer is the first one a worker gave', async () => {
    let sent = 0;
    const answer = await sendUntilProcessed(async () => {
      sent += 1;
      if (sent < 3) throw unprocessed();
      return 'applied';
    });
    expect({ answer, sent }).toEqual({ answer: 'applied', sent: 3 });
  });

  it('gives up after its attempts, and never repeats an update the run refused or failed', async () => {
    let sent = 0;
    await expect(sendUntilProcessed(async () => {
      sent += 1;
      throw unprocessed();
    }, 2)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    expect(sent).toBe(2);

    sent = 0;
    const refused = new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ message: 'the run is not paused', type: 'not_paused' }));
    await expect(sendUntilProcessed(async () => {
      sent += 1;
      throw refused;
    })).rejects.toBe(refused);
    expect(sent).toBe(1);
  });
});
