/**
 * Approvals over ACP (issue 25): a question is the protocol's own `session/request_permission`
 * to the editor, with the options it shows its user (allow once, allow always for this
 * session, reject); the answer returns to the gate. No prompt running (no client to ask), a
 * cancelled request or an option we did not offer deny the call.
 */
import type { AgentContext, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, Approver, ApprovalRequest } from "../../core/approval.js";
import { NO_APPROVER } from "../../core/approval.js";

type Redact = (text: string) => string;

const OPTIONS = [
  { optionId: "allow", name: "Allow once", kind: "allow_once" },
  { optionId: "always", name: "Allow always (this session)", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
] as const;

/** One session's asker: the client of the prompt running, and the gates allowed always. */
export class AcpAsker {
  /** The client of the prompt that is running; set by the prompt, cleared after it. */
  client: AgentContext | undefined;
  sessionId = "";
  private readonly always = new Set<string>();

  constructor(private readonly redact: Redact) {}

  readonly approver: Approver = (request) => this.ask(request);

  private async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    if (this.always.has(request.gate)) return { allow: true, by: "editor" };
    const client = this.client;
    if (!client) return { allow: false, by: "none", reason: NO_APPROVER };
    const response: RequestPermissionResponse = await client.request<RequestPermissionResponse>(
      "session/request_permission",
      {
        sessionId: this.sessionId,
        toolCall: {
          toolCallId: request.id,
          title: this.redact(`${request.gate} asks for approval (approve: ${request.rule})`),
          status: "pending",
          rawInput: parse(this.redact(request.arguments)),
        },
        options: OPTIONS.map((o) => ({ ...o })),
      },
      { cancellationSignal: request.signal },
    );
    const outcome = response.outcome;
    if (outcome.outcome !== "selected")
      return { allow: false, by: "editor", reason: "the editor cancelled the question" };
    if (outcome.optionId === "allow") return { allow: true, by: "editor" };
    if (outcome.optionId === "always") {
      this.always.add(request.gate);
      return { allow: true, by: "editor" };
    }
    if (outcome.optionId === "reject")
      return { allow: false, by: "editor", reason: "denied by the user" };
    return { allow: false, by: "editor", reason: "malformed answer" };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
