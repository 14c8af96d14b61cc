import { QueryView } from '../../components/QueryView.js';
import { RecordLink } from '../../components/RecordLink.js';
import { useTopCampaigns } from './overview-api.js';

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const count = new Intl.NumberFormat();

/** The campaigns with the most opens, with how many went out and how many opened and clicked. */
export function TopCampaignsCard({ projectId }: { projectId: string }) {
  const top = useTopCampaigns(projectId);
  return (
    <section
      className="card stack overview-card"
      aria-labelledby="top-campaigns-title"
      aria-busy={top.isFetching || undefined}
    >
      <h2 id="top-campaigns-title">Top campaigns</h2>
      <QueryView
        query={top}
        loading={<p className="muted">Loading…</p>}
        retry="small"
        isEmpty={(campaigns) => campaigns.length === 0}
        empty={<p className="muted">No campaign has been sent yet. The ones most opened show up here.</p>}
      >
        {(campaigns) => (
          <table className="table top-campaigns" aria-label="Top campaigns by opens">
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col" className="cell-number">
                  Opened
                </th>
                <th scope="col" className="cell-number">
                  Clicked
                </th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <RecordLink to={{ kind: 'campaign', id: c.id }} name={c.name} />
                    <span className="muted small top-campaign-delivered">{count.format(c.delivered)} delivered</span>
                  </th>
                  <td className="cell-number">{percent.format(c.openRate)}</td>
                  <td className="cell-number">{percent.format(c.clickRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
    </section>
  );
}
