import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import type { User } from '../../../src/api.js';
import { usePermissions } from '../api/instance.js';
import { rememberedProject, rememberProject, useProjects } from '../api/projects.js';
import { QueryView } from '../components/QueryView.js';
// The page most people land on comes with the shell: lazy, React would hold it back ~300 ms.
import OverviewPage from '../pages/overview/OverviewPage.js';
import { CreateProjectDialog } from './CreateProjectDialog.js';
import { CurrentProjectContext } from './current-project.js';
import { Header } from './Header.js';
import { MainNav, NavDrawer } from './MainNav.js';
import { NotFoundPage } from './NotFoundPage.js';
import { OpenPaletteContext } from './palette/open-palette.js';
import { opensPalette } from './palette/palette-items.js';

const CommandPalette = lazy(() => import('./palette/CommandPalette.js'));
const ContactsPage = lazy(() => import('../pages/contacts/ContactsPage.js'));
const ContactPage = lazy(() => import('../pages/contacts/ContactPage.js'));
const ImportContactsPage = lazy(() => import('../pages/contacts/ImportContactsPage.js'));
const FieldsPage = lazy(() => import('../pages/contacts/FieldsPage.js'));
const DomainsPage = lazy(() => import('../pages/domains/DomainsPage.js'));
const DeliveryPage = lazy(() => import('../pages/delivery/DeliveryPage.js'));
const MembersPage = lazy(() => import('../pages/members/MembersPage.js'));
const EmailsPage = lazy(() => import('../pages/emails/EmailsPage.js'));
const EmailPage = lazy(() => import('../pages/emails/EmailPage.js'));
const TemplatesPage = lazy(() => import('../pages/templates/TemplatesPage.js'));
const TemplateEditorPage = lazy(() => import('../pages/templates/TemplateEditorPage.js'));
const WebhooksPage = lazy(() => import('../pages/webhooks/WebhooksPage.js'));
const FormsPage = lazy(() => import('../pages/forms/FormsPage.js'));
const TopicsPage = lazy(() => import('../pages/topics/TopicsPage.js'));
const ApiKeysPage = lazy(() => import('../pages/api-keys/ApiKeysPage.js'));
const WebhookPage = lazy(() => import('../pages/webhooks/WebhookPage.js'));
const SuppressionsPage = lazy(() => import('../pages/suppressions/SuppressionsPage.js'));
const InboundPage = lazy(() => import('../pages/inbound/InboundPage.js'));
const InboundMessagePage = lazy(() => import('../pages/inbound/InboundMessagePage.js'));
const SettingsPage = lazy(() => import('../pages/settings/SettingsPage.js'));
const AccountPage = lazy(() => import('../pages/account/AccountPage.js'));
const ActivityPage = lazy(() => import('../pages/activity/ActivityPage.js'));
const AuditLogPage = lazy(() => import('../pages/audit-log/AuditLogPage.js'));
const EventsPage = lazy(() => import('../pages/events/EventsPage.js'));
const SegmentsPage = lazy(() => import('../pages/segments/SegmentsPage.js'));
const SegmentPage = lazy(() => import('../pages/segments/SegmentPage.js'));
const CampaignsPage = lazy(() => import('../pages/campaigns/CampaignsPage.js'));
const CampaignPage = lazy(() => import('../pages/campaigns/CampaignPage.js'));
const WorkflowsPage = lazy(() => import('../pages/workflows/WorkflowsPage.js'));
const WorkflowPage = lazy(() => import('../pages/workflows/WorkflowPage.js'));

export function Dashboard({ user }: { user: User }) {
  const projects = useProjects();
  const [chosenId, setChosenId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const permissions = usePermissions();
  const create = () => setCreating(true);
  const mayCreate = permissions.data?.createProjects ?? false;
  const [paletteOpen, setPaletteOpen] = useState(false);
  const openPalette = useCallback(() => setPaletteOpen(true), []);
  // The drawer remembers the button that opened it, to give focus back when it closes.
  const [drawerFrom, setDrawerFrom] = useState<HTMLButtonElement | null>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!opensPalette(event)) return;
      event.preventDefault();
      setPaletteOpen(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const navigate = useNavigate();
  const { pathname } = useLocation();

  const list = projects.data ?? [];
  const project = list.find((p) => p.id === chosenId) ?? rememberedProject(list) ?? null;
  const choose = (id: string) => {
    rememberProject(id);
    setChosenId(id);
    // A search or page cursor of the last project means nothing in the next one.
    navigate({ pathname });
  };

  return (
    <CurrentProjectContext.Provider value={project}>
      <OpenPaletteContext.Provider value={openPalette}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Header
          user={user}
          projects={list}
          project={project}
          onChooseProject={choose}
          onCreateProject={mayCreate ? create : undefined}
          menu={project ? { open: drawerFrom !== null, onOpen: setDrawerFrom } : null}
        />
        <div className={project ? 'app-body' : undefined}>
          {project && (
            <aside className="app-sidebar">
              <MainNav />
            </aside>
          )}
          <main id="main" className="main" tabIndex={-1} aria-busy={projects.isPending || undefined}>
            <QueryView query={projects} loading={<p>Loading…</p>}>
              {() =>
                project ? (
                  <ProjectPages projectId={project.id} />
                ) : (
                  <QueryView query={permissions} loading={<p>Loading…</p>}>
                    {(may) => <FirstProject onCreate={may.createProjects ? create : undefined} />}
                  </QueryView>
                )
              }
            </QueryView>
          </main>
        </div>
        {drawerFrom && project && <NavDrawer onClose={() => setDrawerFrom(null)} returnFocusTo={drawerFrom} />}
        {paletteOpen && project && (
          <Suspense fallback={null}>
            <CommandPalette onClose={() => setPaletteOpen(false)} />
          </Suspense>
        )}
        <CreateProjectDialog open={creating} onClose={() => setCreating(false)} onCreated={(p) => choose(p.id)} />
      </OpenPaletteContext.Provider>
    </CurrentProjectContext.Provider>
  );
}

function ProjectPages({ projectId }: { projectId: string }) {
  return (
    <Suspense fallback={<p aria-busy="true">Loading…</p>}>
      {/* A new project starts its pages afresh, dropping the state of the last one. */}
      <Routes key={projectId}>
        <Route index element={<Navigate to="/overview" replace />} />
        <Route path="contacts" element={<ContactsPage />} />
        <Route path="contacts/import" element={<ImportContactsPage />} />
        <Route path="contacts/fields" element={<FieldsPage />} />
        <Route path="contacts/:id" element={<ContactPage />} />
        <Route path="templates" element={<TemplatesPage />} />
        <Route path="templates/new" element={<TemplateEditorPage />} />
        <Route path="templates/:id" element={<TemplateEditorPage />} />
        <Route path="emails" element={<EmailsPage />} />
        <Route path="emails/:id" element={<EmailPage />} />
        <Route path="domains" element={<DomainsPage />} />
        <Route path="delivery" element={<DeliveryPage />} />
        <Route path="members" element={<MembersPage />} />
        <Route path="inbound" element={<InboundPage />} />
        <Route path="inbound/:id" element={<InboundMessagePage />} />
        <Route path="suppressions" element={<SuppressionsPage />} />
        <Route path="webhooks" element={<WebhooksPage />} />
        <Route path="forms" element={<FormsPage />} />
        <Route path="topics" element={<TopicsPage />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        <Route path="webhooks/:id" element={<WebhookPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="account" element={<AccountPage />} />
        <Route path="overview" element={<OverviewPage />} />
        <Route path="activity" element={<ActivityPage />} />
        <Route path="audit-log" element={<AuditLogPage />} />
        <Route path="events" element={<EventsPage />} />
        <Route path="segments" element={<SegmentsPage />} />
        <Route path="segments/new" element={<SegmentPage />} />
        <Route path="segments/:id" element={<SegmentPage />} />
        {/* One route for new and existing campaigns: the composer stays mounted when its first save names it. */}
        <Route path="campaigns" element={<CampaignsPage />} />
        <Route path="campaigns/:id" element={<CampaignPage />} />
        <Route path="workflows" element={<WorkflowsPage />} />
        <Route path="workflows/:id" element={<WorkflowPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  );
}

function FirstProject({ onCreate }: { onCreate?: () => void }) {
  if (!onCreate) {
    return (
      <section className="empty-state" aria-labelledby="first-project-title">
        <h1 id="first-project-title">You are not in a project yet</h1>
        <p className="muted">
          On this instance, instance admins create projects. Ask one to invite you to a project, then open the link.
        </p>
      </section>
    );
  }
  return (
    <section className="empty-state" aria-labelledby="first-project-title">
      <h1 id="first-project-title">Create your first project</h1>
      <p className="muted">Contacts, domains and emails belong to a project. Each project has its own API keys.</p>
      <button type="button" className="button button-primary" onClick={onCreate}>
        Create project
      </button>
    </section>
  );
}
