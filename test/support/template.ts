/** Reading a synthesized CloudFormation template in the infrastructure tests. */

/** A value of the template as text: each `Fn::Join` joined, each reference as `<LogicalId>` or `<LogicalId.Attribute>` (pseudo parameters `<AWS::Region>`). */
export function resolveText(value: unknown): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (intrinsic['Fn::Join']) return intrinsic['Fn::Join'][1].map(resolveText).join(intrinsic['Fn::Join'][0]);
  if (intrinsic.Ref) return `<${intrinsic.Ref}>`;
  if (intrinsic['Fn::GetAtt']) return `<${intrinsic['Fn::GetAtt'].join('.')}>`;
  throw new Error(`Not a text of the template: ${JSON.stringify(value)}`);
}
