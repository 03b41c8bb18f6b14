/**
 * Why the link's door (rpc.ts) refused an incoming message. Its own file because
 * both the door and the call budget it charges (call-budget.ts) name it, and the
 * door imports the budget.
 */

/** Why an incoming message was refused at the door. */
export interface Refusal {
  readonly code: 'METHOD_NOT_ALLOWED' | 'INVALID_MESSAGE' | 'VALUE_TOO_LARGE' | 'INVALID_VALUE';
  readonly message: string;
}
