/** Every operation family the runner knows; each family adds itself here in one line. */
import { changeStreamOperations } from './change-streams';
import { crudOperations } from './crud';
import { gridfsOperations } from './gridfs';
import { runnerOperations } from './runner';
import { sessionOperations } from './sessions';
import { OperationTable } from './table';
import { transactionOperations } from './transactions';

export const OPERATIONS: OperationTable = {
  ...crudOperations,
  ...gridfsOperations,
  ...changeStreamOperations,
  ...sessionOperations,
  ...runnerOperations,
  ...transactionOperations,
};
