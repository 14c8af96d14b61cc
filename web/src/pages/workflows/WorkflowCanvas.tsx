import {
  BaseEdge,
  type Connection,
  Controls,
  type Edge,
  EdgeLabelRenderer,
  type EdgeProps,
  getSmoothStepPath,
  Handle,
  MarkerType,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  type ReactFlowInstance,
  useNodesState,
} from '@xyflow/react';
import '@xyflow/react/dist/base.css';
import { createContext, memo, useContext, useEffect, useMemo, useRef } from 'react';
import type { Branch, WorkflowDetail, WorkflowTransition } from '../../../../src/api.js';
import {
  BRANCH_LABELS,
  type CanvasEdge,
  type CanvasNode,
  canvasGraph,
  layoutGraph,
  type Placement,
  type Slot,
  slotsOf,
  stepTitle,
  TRIGGER_ID,
} from './graph-model.js';
import { StepCard, TriggerCard } from './StepCard.js';
import type { StepView } from './step-views.js';

export interface CanvasProps {
  workflow: WorkflowDetail;
  editable: boolean;
  views: Map<string, StepView>;
  selected: string | null;
  /** The steps and transitions the followed contact's execution went through. */
  pathEdges: Set<string>;
  onOpen: (id: string) => void;
  onPlace: (placement: Placement, label: string) => void;
  onConnect: (slot: Slot, to: string) => void;
  onRetarget: (t: WorkflowTransition, to: string) => void;
  onMoved: (stepId: string, position: { x: number; y: number }) => void;
}

type FlowNode = Node<{ node: CanvasNode }>;
type FlowEdge = Edge<{
  edge: CanvasEdge;
  insert: (() => void) | null;
  insertLabel: string;
  label: string;
  classes: string;
}>;

/**
 * What every node reads besides its own place in the graph. Given through context, not node data,
 * so a node being dragged re-renders alone, and new counts re-render the nodes without moving them.
 */
interface NodeShared {
  workflow: WorkflowDetail;
  views: Map<string, StepView>;
  selected: string | null;
  onOpen: (id: string) => void;
  onPlace: CanvasProps['onPlace'];
}

const NodeContext = createContext<NodeShared | null>(null);

const handleId = (branch: Branch | null) => branch ?? 'next';
const FIT = { maxZoom: 1, padding: 0.1 };

/** The workflow on a canvas: dagre's layout, steps that open in the side panel, "+" at every open end. */
export function WorkflowCanvas(props: CanvasProps) {
  const { workflow, editable, views, selected, pathEdges, onOpen, onPlace } = props;
  const graph = useMemo(() => canvasGraph(workflow, editable), [workflow, editable]);
  const laidOut = useMemo(() => layoutGraph(graph.nodes, graph.edges), [graph]);
  const shared = useMemo<NodeShared>(
    () => ({ workflow, views, selected, onOpen, onPlace }),
    [workflow, views, selected, onOpen, onPlace],
  );
  const initial = useMemo<FlowNode[]>(
    () =>
      laidOut.map((p) => ({
        id: p.item.id,
        type: p.item.kind,
        position: { x: p.x, y: p.y },
        data: { node: p.item },
        draggable: p.item.kind === 'step',
        width: p.width,
        height: p.height,
      })),
    [laidOut],
  );
  const [nodes, setNodes, onNodesChange] = useNodesState<FlowNode>(initial);
  useEffect(() => setNodes(initial), [initial, setNodes]);
  // A step added or removed: the whole graph comes back into view, once xyflow has the new nodes.
  const flow = useRef<ReactFlowInstance<FlowNode, FlowEdge> | null>(null);
  const shape = graph.nodes.map((n) => n.id).join();
  // biome-ignore lint/correctness/useExhaustiveDependencies: refits when the set of nodes changes, not on every render
  useEffect(() => {
    const timer = setTimeout(() => flow.current?.fitView(FIT), 50);
    return () => clearTimeout(timer);
  }, [shape]);

  const edges = useMemo<FlowEdge[]>(() => {
    const titleOf = (id: string) => {
      const s = workflow.steps.find((x) => x.id === id);
      return s ? stepTitle(s) : 'the trigger';
    };
    return graph.edges.map((e) => {
      const toOpen = e.target.startsWith('open:');
      const where = `between ${titleOf(e.source)} and ${titleOf(e.target)}`;
      const insert =
        editable && !toOpen ? () => onPlace({ kind: 'edge', transition: e.transition, to: e.target }, where) : null;
      const classes = [e.branch ? `edge-${e.branch}` : '', pathEdges.has(e.id) ? 'is-on-path' : '']
        .filter(Boolean)
        .join(' ');
      return {
        id: e.id,
        source: e.source,
        target: e.target,
        sourceHandle: handleId(e.branch),
        type: 'branch',
        reconnectable: editable && e.transition !== null ? 'target' : false,
        className: classes,
        markerEnd: { type: MarkerType.ArrowClosed },
        data: {
          edge: e,
          insert,
          insertLabel: `Insert a step ${where}`,
          label: e.branch ? BRANCH_LABELS[e.branch] : '',
          classes,
        },
      };
    });
  }, [graph, editable, pathEdges, onPlace, workflow]);

  // Handlers that never change: a new one on each render would make xyflow update its store while a step is dragged.
  const latest = useRef(props);
  latest.current = props;
  const handlers = useMemo(() => {
    const isStep = (id: string | null | undefined): id is string =>
      !!id && !id.startsWith('open:') && id !== TRIGGER_ID;
    return {
      connect: (c: Connection) => {
        const { workflow: w, onConnect } = latest.current;
        const step = w.steps.find((s) => s.id === c.source);
        if (!step || !isStep(c.target)) return;
        const slot = slotsOf(step, w.transitions).find((s) => handleId(s.branch) === c.sourceHandle);
        if (slot) onConnect(slot, c.target);
      },
      reconnect: (old: FlowEdge, c: Connection) => {
        const t = old.data?.edge.transition;
        if (t && isStep(c.target)) latest.current.onRetarget(t, c.target);
      },
      dragStop: (_: unknown, node: FlowNode) => latest.current.onMoved(node.id, node.position),
    };
  }, []);

  return (
    <NodeContext.Provider value={shared}>
      <ReactFlow<FlowNode, FlowEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        onNodesChange={onNodesChange}
        onNodeDragStop={handlers.dragStop}
        onConnect={editable ? handlers.connect : undefined}
        onReconnect={handlers.reconnect}
        nodesConnectable={editable}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        onInit={(instance) => {
          flow.current = instance;
        }}
        fitView
        fitViewOptions={FIT}
        minZoom={0.1}
        proOptions={{ hideAttribution: true }}
        aria-label={`Steps of ${workflow.name}`}
      >
        <Controls showInteractive={false} />
      </ReactFlow>
    </NodeContext.Provider>
  );
}

const TriggerNode = memo(function TriggerNode(_: NodeProps<FlowNode>) {
  const { workflow, selected, onOpen } = useContext(NodeContext)!;
  return (
    <>
      <TriggerCard workflow={workflow} selected={selected === TRIGGER_ID} onOpen={() => onOpen(TRIGGER_ID)} />
      <Handle type="source" position={Position.Bottom} id="next" isConnectable={false} />
    </>
  );
});

const StepNode = memo(function StepNode({ data }: NodeProps<FlowNode>) {
  const node = data.node as Extract<CanvasNode, { kind: 'step' }>;
  const { workflow, views, selected, onOpen } = useContext(NodeContext)!;
  const slots = slotsOf(node.step, workflow.transitions);
  return (
    <>
      <Handle type="target" position={Position.Top} />
      <StepCard
        step={node.step}
        view={views.get(node.step.id)}
        selected={selected === node.step.id}
        onOpen={() => onOpen(node.step.id)}
      />
      {slots.map((slot, i) => (
        <Handle
          key={handleId(slot.branch)}
          type="source"
          position={Position.Bottom}
          id={handleId(slot.branch)}
          style={{ left: `${((i + 1) / (slots.length + 1)) * 100}%` }}
          title={slot.branch ? BRANCH_LABELS[slot.branch] : undefined}
        />
      ))}
    </>
  );
});

const OpenNode = memo(function OpenNode({ data }: NodeProps<FlowNode>) {
  const node = data.node as Extract<CanvasNode, { kind: 'open' }>;
  const { workflow, onPlace } = useContext(NodeContext)!;
  const step = node.slot ? workflow.steps.find((s) => s.id === node.slot!.stepId) : null;
  const where = step
    ? `after ${stepTitle(step)}${node.slot?.branch ? ` (${BRANCH_LABELS[node.slot.branch]})` : ''}`
    : 'after the trigger';
  return (
    <>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className={`open-end ${node.ghost ? 'is-ghost' : ''}`}>
        {node.ghost && (
          <span className="open-end-label" aria-hidden="true">
            End
          </span>
        )}
        <button
          type="button"
          className="add-step-button"
          aria-label={`Add a step ${where}`}
          title={`Add a step ${where}`}
          onClick={() => onPlace({ kind: 'end', slot: node.slot }, where)}
        >
          +
        </button>
      </div>
    </>
  );
});

function BranchEdge(props: EdgeProps<FlowEdge>) {
  const [path, labelX, labelY] = getSmoothStepPath({ ...props, borderRadius: 12 });
  const { label, insert, insertLabel, classes } = props.data ?? {
    label: '',
    insert: null,
    insertLabel: '',
    classes: '',
  };
  return (
    <>
      <BaseEdge id={props.id} path={path} markerEnd={props.markerEnd} />
      {(label || insert) && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label nodrag nopan ${classes}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          >
            {label && <span className="edge-branch">{label}</span>}
            {insert && (
              <button
                type="button"
                className="edge-insert"
                aria-label={insertLabel}
                title={insertLabel}
                onClick={insert}
              >
                +
              </button>
            )}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

const NODE_TYPES = { trigger: TriggerNode, step: StepNode, open: OpenNode };
const EDGE_TYPES = { branch: BranchEdge };
