/**
 * `node --import ./bench/tracing-floors/without-instrumentations.mjs dist/main.js`, with an OTLP
 * endpoint set: tracing as the service starts it, but the graphql and mongodb instrumentations
 * hook nothing (the server span, the transaction spans and the export remain); with
 * `WITHOUT=mongodb`, only the mongodb one is left out. What the instrumentations cost
 * (docs/operations.md, "Traces").
 */
import process from 'node:process';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';

MongoDBInstrumentation.prototype.init = () => [];
if (process.env.WITHOUT !== 'mongodb') GraphQLInstrumentation.prototype.init = () => [];
