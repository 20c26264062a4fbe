package storage

// Role is a user's role; it fixes the user's capabilities (docs/API.md "Authentication and permissions").
type Role string

// The five roles, most powerful first.
const (
	RoleAdministrator Role = "administrator"
	RoleEditor        Role = "editor"
	RoleAuthor        Role = "author"
	RoleContributor   Role = "contributor"
	RoleSubscriber    Role = "subscriber"
)

// Roles lists every role, most powerful first.
var Roles = []Role{RoleAdministrator, RoleEditor, RoleAuthor, RoleContributor, RoleSubscriber}

// Cap is a capability of docs/API.md "Authentication and permissions".
type Cap uint16

// Capabilities. The bit values are not stored anywhere, so they may be renumbered.
const (
	CapEditPosts Cap = 1 << iota
	CapPublishPosts
	CapEditPublishedPosts
	CapDeletePublishedPosts
	CapDeletePosts
	CapEditOthersPosts
	CapDeleteOthersPosts
	CapEditPrivatePosts
	CapDeletePrivatePosts
	CapReadPrivatePosts
	CapManageCategories
	CapManageTags
	CapUploadFiles
	CapUnfilteredHTML
)

var roleCaps = map[Role]Cap{
	RoleAdministrator: ^Cap(0),
	RoleEditor:        ^Cap(0),
	RoleAuthor: CapEditPosts | CapPublishPosts | CapEditPublishedPosts | CapDeletePublishedPosts |
		CapDeletePosts | CapManageCategories | CapUploadFiles,
	RoleContributor: CapEditPosts | CapDeletePosts,
	RoleSubscriber:  0,
}

// ValidRole reports whether r is one of the five roles.
func ValidRole(r Role) bool {
	_, ok := roleCaps[r]
	return ok
}

// User is an account that authenticates with application passwords.
type User struct {
	ID          uint64 `json:"id"`
	Login       string `json:"login"`
	Email       string `json:"email"`
	DisplayName string `json:"display_name"`
	Role        Role   `json:"role"`
}

// Actor is the identity a request acts as. The zero Actor is an anonymous caller.
type Actor struct {
	UserID uint64
	Role   Role
}

// Anonymous reports whether the actor is not authenticated.
func (a Actor) Anonymous() bool { return a.UserID == 0 }

// Can reports whether the actor holds capability c.
func (a Actor) Can(c Cap) bool {
	if a.Anonymous() {
		return false
	}
	return roleCaps[a.Role]&c == c
}

// CanRead reports whether the actor may read p (docs/API.md "Authentication and permissions").
func (a Actor) CanRead(p *Post) bool {
	switch {
	case p.Status == StatusPublish:
		return true
	case a.owns(p):
		return true
	case p.Status == StatusPrivate:
		return a.Can(CapReadPrivatePosts)
	default:
		return a.Can(CapEditOthersPosts)
	}
}

// CanEdit reports whether the actor may change p (docs/API.md "Authentication and permissions").
func (a Actor) CanEdit(p *Post) bool {
	return a.may(p, CapEditPosts, CapEditPublishedPosts, CapEditOthersPosts, CapEditPrivatePosts)
}

// CanDelete reports whether the actor may trash p (docs/API.md "Authentication and permissions").
func (a Actor) CanDelete(p *Post) bool {
	return a.may(p, CapDeletePosts, CapDeletePublishedPosts, CapDeleteOthersPosts, CapDeletePrivatePosts)
}

func (a Actor) may(p *Post, own, published, others, private Cap) bool {
	status := p.effectiveStatus()
	isPublished := status == StatusPublish || status == StatusFuture
	if a.owns(p) {
		if isPublished {
			return a.Can(published)
		}
		return a.Can(own)
	}
	need := others
	if isPublished {
		need |= published
	}
	if status == StatusPrivate {
		need |= private
	}
	return a.Can(need)
}

func (a Actor) owns(p *Post) bool { return !a.Anonymous() && p.Author == a.UserID }
