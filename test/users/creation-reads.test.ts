/**
 * The reads a creation sends before and after its insert (src/users/creation.ts, steps 2 and 5):
 * one `find` for the idempotency keys and one for the inviters when an item has them, one `find`
 * of a lost key race's winner after the insert, and none of them otherwise: a plain `createUser`
 * is its strategy's commands alone (COUNTER: the `$inc` and the insert). The plain path is
 * planned and settled without a wait (bench/results/0.4.md, "CPU levers of 0.4"); these hold that it
 * still reads whatever a replay, a refusal or a race needs.
 */
import { UnknownInviterError } from '../../src/users';
import { createdIds, UsersTestBed } from './fixture';

let bed: UsersTestBed;
beforeAll(async () => {
  bed = await UsersTestBed.open();
});
afterAll(() => bed.close());

describe('the reads of a COUNTER creation', () => {
  test('a plain createUser sends the $inc and the insert, and nothing else', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'first' }, 'COUNTER');
    let id = '';
    const commands = await commandsDuring(async () => {
      id = (await users.createUser({ name: 'Ann' }, 'COUNTER')).user.id;
    });
    expect(commands).toEqual(['findAndModify', 'insert']);
    expect(id).toBe('2');
  });

  test('a key is looked up before anything is taken, and a stored one replays with no write', async () => {
    const { users, commandsDuring } = await bed.fresh();
    const firstCommands = await commandsDuring(() =>
      users.createUser({ name: 'Ann', idempotencyKey: 'k-1' }, 'COUNTER'),
    );
    expect(firstCommands.slice(0, 3)).toEqual(['find', 'findAndModify', 'insert']);
    let replay: Awaited<ReturnType<typeof users.createUser>> | undefined;
    const replayCommands = await commandsDuring(async () => {
      replay = await users.createUser({ name: 'Ann', idempotencyKey: 'k-1' }, 'COUNTER');
    });
    expect(replayCommands[0]).toBe('find');
    expect(replayCommands).not.toContain('findAndModify');
    expect(replayCommands).not.toContain('insert');
    expect(replay).toMatchObject({ replayed: true, attempts: 0, user: { id: '1' } });
  });

  test('inviters are looked up before anything is taken; an unknown one takes no id', async () => {
    const { users, commandsDuring } = await bed.fresh();
    await users.createUser({ name: 'inviter' }, 'COUNTER');
    let results: Awaited<ReturnType<typeof users.createUsers>> = [];
    const commands = await commandsDuring(async () => {
      results = await users.createUsers(
        [
          { name: 'plain' },
          { name: 'invited', invitedById: '1' },
          { name: 'invited by no one', invitedById: '99' },
        ],
        'COUNTER',
      );
    });
    expect(commands).toEqual(['find', 'findAndModify', 'insert']);
    expect(results[2]).toEqual({ error: expect.any(UnknownInviterError) });
    expect(createdIds(results)).toEqual([2, 3]);
  });

  test('a key stored by a concurrent request between the lookup and the insert is read and replayed', async () => {
    const { users, db, commandsDuring } = await bed.fresh();
    // The lookup finds nothing; the insert then meets the key another request stored meanwhile.
    const ann = { name: 'Ann', idempotencyKey: 'race' };
    let answers: Array<Awaited<ReturnType<typeof users.createUser>>> = [];
    const racing = await commandsDuring(async () => {
      answers = await Promise.all(
        Array.from({ length: 8 }, () => users.createUser(ann, 'COUNTER')),
      );
    });
    // 8 lookups, then at least a read of the winner by each loser whose insert met the key (the
    // replays' index confirmation may read too).
    const losersAfterInsert = racing.filter((name) => name === 'insert').length - 1;
    expect(losersAfterInsert).toBeGreaterThan(0);
    const finds = racing.filter((name) => name === 'find').length;
    expect(finds).toBeGreaterThanOrEqual(8 + losersAfterInsert);
    expect(answers.filter((answer) => !answer.replayed)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.user.id)).size).toBe(1);
    expect(await db.collection('users').countDocuments({ idempotencyKey: { $exists: true } })).toBe(
      1,
    );
    // Alone, a stored key is found by the lookup: no insert, no read after it.
    const commands = await commandsDuring(() => users.createUser(ann, 'COUNTER'));
    expect(commands.filter((name) => name === 'insert')).toHaveLength(0);
  });
});
