/**
 * The schema as a client's tooling reads it, through introspection over HTTP (as Apollo Sandbox
 * does): every type, field, argument and enum value is described, and the custom scalars keep their
 * descriptions and `@specifiedBy` URLs (graphql-tools used to overwrite both with the empty ones of
 * the scalars' code; issue 12). Root fields are nullable, so one failing field nulls only itself.
 */
import { startTestService, type TestService } from '../support/service';

const INTROSPECTION = `{
  __schema {
    types {
      name kind description specifiedByURL
      fields(includeDeprecated: true) { name description type { kind } args { name description } }
      inputFields { name description }
      enumValues(includeDeprecated: true) { name description }
    }
  }
}`;

interface IntrospectedType {
  name: string;
  kind: string;
  description: string | null;
  specifiedByURL: string | null;
  fields: Array<{
    name: string;
    description: string | null;
    type: { kind: string };
    args: Array<{ name: string; description: string | null }>;
  }> | null;
  inputFields: Array<{ name: string; description: string | null }> | null;
  enumValues: Array<{ name: string; description: string | null }> | null;
}

let service: TestService;
let types: IntrospectedType[];

beforeAll(async () => {
  service = await startTestService();
  const response = await service.graphql(INTROSPECTION);
  expect(response.body.errors).toBeUndefined();
  types = (response.body.data.__schema.types as IntrospectedType[]).filter(
    (type) =>
      !type.name.startsWith('__') &&
      !['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name),
  );
});

afterAll(async () => {
  await service.stop();
});

const blank = (text: string | null) => text === null || text.trim() === '';

test('every type, field, argument, input field and enum value has a description', () => {
  const undescribed = types.flatMap((type) => [
    ...(blank(type.description) ? [type.name] : []),
    ...(type.fields ?? []).flatMap((field) => [
      ...(blank(field.description) ? [`${type.name}.${field.name}`] : []),
      ...field.args
        .filter((arg) => blank(arg.description))
        .map((arg) => `${type.name}.${field.name}(${arg.name})`),
    ]),
    ...(type.inputFields ?? [])
      .filter((field) => blank(field.description))
      .map((field) => `${type.name}.${field.name}`),
    ...(type.enumValues ?? [])
      .filter((value) => blank(value.description))
      .map((value) => `${type.name}.${value.name}`),
  ]);
  expect(undescribed).toEqual([]);
  expect(types.length).toBeGreaterThan(20);
});

test('Long and DateTime keep their descriptions and @specifiedBy over introspection', () => {
  const scalar = (name: string) => types.find((type) => type.name === name);
  expect(scalar('Long')).toMatchObject({
    kind: 'SCALAR',
    description: expect.stringMatching(/2\^53 - 1/),
    specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc8259#section-6',
  });
  expect(scalar('DateTime')).toMatchObject({
    kind: 'SCALAR',
    description: expect.stringMatching(/ISO-8601/),
    specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
  });
});

test('every root field is nullable', () => {
  const roots = types.filter((type) => type.name === 'Query' || type.name === 'Mutation');
  const nonNull = roots.flatMap((type) =>
    (type.fields ?? [])
      .filter((field) => field.type.kind === 'NON_NULL')
      .map((field) => `${type.name}.${field.name}`),
  );
  expect(nonNull).toEqual([]);
});

test('the scalars still coerce: a string of digits is a Long, a fraction is refused, instants are ISO', async () => {
  const created = await service.graphql(
    'mutation { createSequence(input: { name: "scalars", start: "1000" }) { sequence { start next updatedAt } error { code } } }',
  );
  expect(created.body.errors).toBeUndefined();
  expect(created.body.data.createSequence).toMatchObject({
    sequence: { start: 1000, next: 1000 },
    error: null,
  });
  const { updatedAt } = created.body.data.createSequence.sequence;
  if (updatedAt !== null) expect(new Date(updatedAt).toISOString()).toBe(updatedAt);
  const refused = await service.graphql(
    'mutation { createSequence(input: { name: "scalars", start: 1.5 }) { error { code } } }',
  );
  expect(refused.status).toBe(400);
  expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
});
