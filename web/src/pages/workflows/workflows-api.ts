import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Branch,
  Execution,
  ExecutionDetail,
  ExecutionStatus,
  StepStats,
  StepType,
  Workflow,
  WorkflowDetail,
  WorkflowFields,
  WorkflowListItem,
  WorkflowStep,
} from '../../../../src/api.js';
import { api } from '../../api/client.js';

const listKey = (projectId: string) => ['workflows', projectId] as const;
const detailKey = (projectId: string, id: string) => ['workflows', projectId, 'one', id] as const;
export const workflowPath = (id: string) => `/workflows/${encodeURIComponent(id)}`;

export function useWorkflows(projectId: string) {
  return useQuery({
    queryKey: listKey(projectId),
    queryFn: ({ signal }) => api<WorkflowListItem[]>('GET', '/workflows', { projectId, signal }),
  });
}

export function useWorkflow(projectId: string, id: string) {
  return useQuery({
    queryKey: detailKey(projectId, id),
    queryFn: ({ signal }) => api<WorkflowDetail>('GET', workflowPath(id), { projectId, signal }),
  });
}

/** The canvas's counts, asked again every few seconds while the page is open. */
export function useStepStats(projectId: string, id: string, since: string) {
  return useQuery({
    queryKey: [...detailKey(projectId, id), 'stats', since],
    queryFn: ({ signal }) =>
      api<StepStats>('GET', `${workflowPath(id)}/stats`, { projectId, signal, query: { since } }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
}

export interface ExecutionsPage {
  data: Execution[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}

export function useExecutions(
  projectId: string,
  id: string,
  query: { status?: ExecutionStatus; email?: string; cursor?: string; limit?: number },
  enabled = true,
) {
  return useQuery({
    queryKey: [...detailKey(projectId, id), 'executions', query],
    queryFn: ({ signal }) =>
      api<ExecutionsPage>('GET', `${workflowPath(id)}/executions`, {
        projectId,
        signal,
        query: { limit: 20, ...query },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
    enabled,
  });
}

export function useExecution(projectId: string, id: string, executionId: string | null) {
  return useQuery({
    queryKey: [...detailKey(projectId, id), 'execution', executionId],
    queryFn: ({ signal }) =>
      api<ExecutionDetail>('GET', `${workflowPath(id)}/executions/${executionId}`, { projectId, signal }),
    enabled: executionId !== null,
    refetchInterval: 3000,
  });
}

/** Calls that change a workflow; each refreshes its page and the list once it is done. */
export function useWorkflowCalls(projectId: string, id: string) {
  const queryClient = useQueryClient();
  const base = workflowPath(id);
  const call = <T>(method: string, path: string, body?: unknown) => api<T>(method, path, { projectId, body });
  return {
    refresh: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: detailKey(projectId, id) }),
        queryClient.invalidateQueries({ queryKey: listKey(projectId), exact: true }),
      ]),
    read: () => call<WorkflowDetail>('GET', base),
    patch: (body: Partial<Pick<Workflow, 'name' | 'triggerType' | 'triggerConfig' | 'enabled' | 'allowReentry'>>) =>
      call<Workflow>('PATCH', base, body),
    addStep: (body: { type: StepType; name?: string | null; config: unknown; position?: unknown }) =>
      call<WorkflowStep>('POST', `${base}/steps`, body),
    patchStep: (stepId: string, body: { name?: string | null; config?: unknown; position?: unknown }) =>
      call<WorkflowStep>('PATCH', `${base}/steps/${stepId}`, body),
    deleteStep: (stepId: string, splice: boolean) => call<void>('DELETE', `${base}/steps/${stepId}?splice=${splice}`),
    addTransition: (fromStepId: string, toStepId: string, branch: Branch | null) =>
      call('POST', `${base}/transitions`, { fromStepId, toStepId, ...(branch ? { branch } : {}) }),
    deleteTransition: (transitionId: string) => call<void>('DELETE', `${base}/transitions/${transitionId}`),
    /** The contact's latest execution first. */
    executionsOf: (email: string) =>
      api<ExecutionsPage>('GET', `${base}/executions`, { projectId, query: { email, limit: 1 } }),
    start: (body: { email: string; context: Record<string, unknown> }) =>
      call<Execution>('POST', `${base}/executions`, body),
    cancel: (executionId: string) => call<Execution>('DELETE', `${base}/executions/${executionId}`),
    cancelAll: () => call<{ cancelled: number }>('POST', `${base}/executions/cancel-all`, {}),
  };
}

export type WorkflowCalls = ReturnType<typeof useWorkflowCalls>;

export function useCreateWorkflow(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; triggerConfig?: { event: string } }) =>
      api<Workflow>('POST', '/workflows', { projectId, body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey(projectId), exact: true }),
  });
}

export function useDuplicateWorkflow(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<WorkflowDetail>('POST', `${workflowPath(id)}/duplicate`, { projectId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey(projectId), exact: true }),
  });
}

export function useDeleteWorkflow(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', workflowPath(id), { projectId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey(projectId), exact: true }),
  });
}

export function useTemplateOptions(projectId: string) {
  return useQuery({
    queryKey: ['templates', projectId, 'options'],
    queryFn: ({ signal }) =>
      api<{ data: { id: string; name: string; subject: string; type: string }[] }>('GET', '/templates', {
        projectId,
        signal,
        query: { pageSize: 100, sort: 'name', dir: 'asc' },
      }),
  });
}

/** Fields for CONDITION and UPDATE_CONTACT steps; with `event`, also that trigger event's `context` values. */
export function useWorkflowFields(projectId: string, event?: string | null) {
  return useQuery({
    queryKey: ['workflows', projectId, 'fields', event ?? null],
    queryFn: ({ signal }) =>
      api<WorkflowFields>('GET', `/workflows/fields${event ? `?event=${encodeURIComponent(event)}` : ''}`, {
        projectId,
        signal,
      }),
  });
}
