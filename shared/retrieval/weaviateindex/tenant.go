package weaviateindex

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/schema"
)

// tenantName is what Config.Tenant may be: Weaviate allows 64 of
// [A-Za-z0-9_-] in a tenant name, and "-" + a 16-digit version is added.
var tenantName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,47}$`)

// ErrBadTenant is returned for a Config.Tenant Weaviate cannot name.
var ErrBadTenant = errors.New("weaviate index: tenant: want 1-47 of [A-Za-z0-9_-]")

// argOfVariadic is argOf for a builder method taking a variadic argument.
func argOfVariadic[R, A, B any](func(R, ...A) B) (a A) { return a }

// tenantExists says whether the index's tenant exists in cls.
func (x *Index) tenantExists(ctx context.Context, cls string, budget bool) (bool, error) {
	var exists bool
	f := func(ctx context.Context) error {
		var err error
		exists, err = x.client.Schema().TenantsExists().WithClassName(cls).WithTenant(x.tenant).Do(ctx)
		var ce *fault.WeaviateClientError
		if errors.As(err, &ce) && ce.StatusCode == 404 {
			exists, err = false, nil
		}
		return err
	}
	var err error
	if budget {
		err = x.retry(ctx, "tenant check "+cls+"/"+x.tenant, f)
	} else {
		err = x.retryFor(ctx, "tenant check "+cls+"/"+x.tenant, -1, f)
	}
	return exists, err
}

// currentTenant is current for a multi-tenant collection: the collection
// must record this layout (it is never dropped here: it holds other
// catalogs), and the tenant must hold want objects; a tenant holding more
// (not this version after all) is deleted.
func (x *Index) currentTenant(ctx context.Context, cls, desc, got string, want int) (bool, error) {
	if got != desc {
		return false, fmt.Errorf("weaviate index: collection %s records another layout than this index's; drop it by hand", cls)
	}
	exists, err := x.tenantExists(ctx, cls, true)
	if err != nil || !exists {
		return false, err
	}
	if x.cfg.Rebuild {
		return false, x.drop(ctx, []part{{cls, x.tenant}})
	}
	n, err := x.count(ctx, cls)
	if err != nil || n == want {
		return n == want, err
	}
	if n < want {
		return false, nil // an import cut short: completed by importing again
	}
	return false, x.drop(ctx, []part{{cls, x.tenant}})
}

// createTenant adds the index's tenant to cls (an existing one is fine).
func (x *Index) createTenant(ctx context.Context, cls string) error {
	t, err := decodeAs(argOfVariadic((*schema.TenantsCreator).WithTenants), map[string]any{"name": x.tenant})
	if err != nil {
		return fmt.Errorf("weaviate index: tenant %s: %w", x.tenant, err)
	}
	return x.retry(ctx, "create tenant "+cls+"/"+x.tenant, func(ctx context.Context) error {
		err := x.client.Schema().TenantsCreator().WithClassName(cls).WithTenants(t).Do(ctx)
		if err != nil && strings.Contains(err.Error(), "already exists") {
			return nil
		}
		return err
	})
}

// dropStaleTenants is DropStale with Config.Tenant: every other version's
// tenant of the same tenant name, in both collections.
func (x *Index) dropStaleTenants(ctx context.Context) ([]string, error) {
	var stale []part
	var names []string
	for _, cls := range []string{x.skillCls, x.textCls} {
		var tenants []string
		err := x.retry(ctx, "list tenants "+cls, func(ctx context.Context) error {
			ts, err := x.client.Schema().TenantsGetter().WithClassName(cls).Do(ctx)
			if err != nil {
				return err
			}
			tenants = tenants[:0]
			for _, t := range ts {
				tenants = append(tenants, t.Name)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		own := x.cfg.Tenant + "-"
		for _, t := range tenants {
			if v, ok := strings.CutPrefix(t, own); ok && t != x.tenant && len(v) == len(x.version) {
				p := part{cls, t}
				stale = append(stale, p)
				names = append(names, p.String())
			}
		}
	}
	return names, x.drop(ctx, stale)
}
