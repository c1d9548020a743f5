/**
 * Every rendered object checked against the Kubernetes API's own schemas, offline, in two ways:
 *
 * - the validators of the `kubernetes-models` packages (JSON schemas of the Kubernetes OpenAPI document, and of
 *   the Prometheus Operator's CRDs, compiled with ajv): types, required fields, enumerations, formats;
 * - the same packages' TypeScript types, for fields the API does not know (a `readinessprobe`, a probe under the
 *   pod instead of the container): those schemas allow any extra field, and the API server would drop such a
 *   field with no more than a warning, so a typo would quietly remove a probe or a limit. Each object is written
 *   as a typed constant and type-checked, where an unknown field is an error.
 */
import * as path from 'node:path';
import * as ts from 'typescript';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { nameOf, type KubernetesObject } from './render';

interface KindSchema {
  /** Its model: `new Model(object).validate()` throws when the object breaks the schema. */
  model: new (data: never) => { validate(): void };
  /** Where its TypeScript type comes from, and the type's name there. */
  typeModule: string;
  typeName: string;
}

/**
 * The kinds the manifests may hold, by `apiVersion/kind`. An object of any other kind is a problem until its
 * schema is added here.
 */
export const KIND_SCHEMAS: Record<string, KindSchema> = {
  'v1/ConfigMap': { model: ConfigMap, typeModule: 'kubernetes-models/v1/ConfigMap', typeName: 'IConfigMap' },
  'v1/Service': { model: Service, typeModule: 'kubernetes-models/v1/Service', typeName: 'IService' },
  'apps/v1/Deployment': {
    model: Deployment,
    typeModule: 'kubernetes-models/apps/v1/Deployment',
    typeName: 'IDeployment',
  },
  'batch/v1/Job': { model: Job, typeModule: 'kubernetes-models/batch/v1/Job', typeName: 'IJob' },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    typeModule: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    typeName: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/Ingress': {
    model: Ingress,
    typeModule: 'kubernetes-models/networking.k8s.io/v1/Ingress',
    typeName: 'IIngress',
  },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    model: ServiceMonitor,
    typeModule: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    typeName: 'IServiceMonitor',
  },
};

function schemaOf(object: KubernetesObject): KindSchema | undefined {
  return KIND_SCHEMAS[`${object.apiVersion}/${object.kind}`];
}

/** What the schema validators find wrong, one line per object. */
export function schemaProblems(objects: readonly KubernetesObject[]): string[] {
  return objects.flatMap((object) => {
    const schema = schemaOf(object);
    if (!schema)
      return [`${nameOf(object)}: no schema for ${object.apiVersion} ${object.kind} (KIND_SCHEMAS)`];
    try {
      new schema.model(object as never).validate();
      return [];
    } catch (error) {
      return [`${nameOf(object)}: ${(error as Error).message}`];
    }
  });
}

/** The virtual module that declares each object as a constant of its kind's type, beside this file. */
const OBJECTS_FILE = path.join(__dirname, '__rendered-objects__.ts');

/** Fields the Kubernetes types do not have (and any other type error), one line per error, naming the object. */
export function unknownFieldProblems(objects: readonly KubernetesObject[]): string[] {
  const known = objects.filter((object) => schemaOf(object));
  const lines: string[] = [];
  const firstLineOf: number[] = [];
  known.forEach((object, index) => {
    const schema = schemaOf(object) as KindSchema;
    lines.push(`import type { ${schema.typeName} as Kind${index} } from '${schema.typeModule}';`);
  });
  known.forEach((object, index) => {
    firstLineOf.push(lines.length);
    lines.push(
      ...`export const object${index}: Kind${index} = ${JSON.stringify(object, null, 2)};`.split('\n'),
    );
  });
  const source = lines.join('\n');

  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2023.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => file === OBJECTS_FILE || ts.sys.fileExists(file);
  host.readFile = (file) => (file === OBJECTS_FILE ? source : readFile(file));
  host.getSourceFile = (file, language, onError, shouldCreate) =>
    file === OBJECTS_FILE
      ? ts.createSourceFile(file, source, language, true)
      : getSourceFile(file, language, onError, shouldCreate);
  const program = ts.createProgram({ rootNames: [OBJECTS_FILE], options, host });
  const file = program.getSourceFile(OBJECTS_FILE) as ts.SourceFile;

  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.file !== file || diagnostic.start === undefined) return `type check: ${message}`;
    const line = file.getLineAndCharacterOfPosition(diagnostic.start).line;
    const index = firstLineOf.findLastIndex((first) => first <= line);
    const object = known[index];
    const where = object ? nameOf(object) : 'the imports';
    return `${where}: ${message} (at ${lines[line]?.trim()})`;
  });
}
