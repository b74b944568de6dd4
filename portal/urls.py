from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path, register_converter

from complaints import views as claims
from contracting import views as contracts
from core.api import views as api_views
from portal import accounts, exports, follows, history, members, searches, views
from tenders import views as tenders


class PartConverter:
    """The parts of a tender whose documents the tender page links to (awards have their own
    route, with the decision)."""

    regex = "bids|contracts|cancellations"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PartConverter, "part")

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("auctions.urls")),
    path("search.atom", views.search_feed, name="search-feed"),
    path("search.csv", exports.search_export, {"kind": "csv"}, name="search-csv"),
    path("search.xlsx", exports.search_export, {"kind": "xlsx"}, name="search-xlsx"),
    path("searches/", searches.searches, name="searches"),
    path("searches/new/", searches.search_save, name="search-save"),
    path("searches/<int:search_id>/delete/", searches.search_delete, name="search-delete"),
    path("following/", follows.follows, name="follows"),
    path("following/<int:follow_id>/", follows.follow_change, name="follow-change"),
    path("following/<int:follow_id>/stop/", follows.follow_delete, name="follow-delete"),
    path("tenders/new/", tenders.tender_new, name="tender-new"),
    path("classifiers/cpv/", tenders.cpv_options, name="cpv-options"),
    path("tenders/<str:tender_id>/", tenders.tender_detail, name="tender"),
    path("tenders/<str:tender_id>/follow/", follows.follow, name="tender-follow"),
    path("tenders/<str:tender_id>/history/", history.tender_history, name="tender-history"),
    *(
        path(
            f"tenders/<str:tender_id>/{part}.csv",
            exports.tender_part_export,
            {"part": part},
            name=f"tender-{part}-csv",
        )
        for part in exports.PARTS
    ),
    path("tenders/<str:tender_id>/unfollow/", follows.unfollow, name="tender-unfollow"),
    path("tenders/<str:tender_id>/publish/", tenders.tender_publish, name="tender-publish"),
    path("tenders/<str:tender_id>/edit/", tenders.tender_edit, name="tender-edit"),
    path("tenders/<str:tender_id>/cancel/", tenders.tender_cancel, name="tender-cancel"),
    path("tenders/<str:tender_id>/documents/", tenders.tender_documents, name="tender-documents"),
    path(
        "tenders/<str:tender_id>/documents/<str:document_id>/",
        tenders.tender_document_version,
        name="tender-document-version",
    ),
    path(
        "tenders/<str:tender_id>/documents/<str:document_id>/<str:key>/",
        tenders.tender_document_download,
        name="tender-document-download",
    ),
    path("tenders/<str:tender_id>/bids/", tenders.bid_place, name="bid-place"),
    path("tenders/<str:tender_id>/questions/", tenders.question_ask, name="question-ask"),
    path(
        "tenders/<str:tender_id>/questions/<str:question_id>/answer/",
        tenders.question_answer,
        name="question-answer",
    ),
    path("tenders/<str:tender_id>/claims/new/", claims.tender_claim_new, name="tender-claim-new"),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>/price/",
        tenders.bid_reprice,
        name="bid-price",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>/withdraw/",
        tenders.bid_withdraw,
        name="bid-withdraw",
    ),
    path(
        "tenders/<str:tender_id>/bids/<str:bid_id>/documents/",
        tenders.bid_documents,
        name="bid-documents",
    ),
    path(
        "tenders/<str:tender_id>/<part:part>/<str:part_id>/documents/<str:document_id>/<str:key>/",
        tenders.part_document_download,
        name="part-document-download",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/decision/",
        tenders.award_decision,
        name="award-decision",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/documents/<str:document_id>/<str:key>/",
        tenders.award_document_download,
        name="award-document-download",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/contract/",
        tenders.contract_sign,
        name="contract-sign",
    ),
    path(
        "tenders/<str:tender_id>/awards/<str:award_id>/claims/new/",
        claims.claim_new,
        name="claim-new",
    ),
    path("contracts/", contracts.contract_search, name="contracts"),
    path("contracts/<str:contract_id>/", contracts.contract_page, name="contract"),
    path("contracts/<str:contract_id>/change/", contracts.contract_change, name="contract-change"),
    path(
        "contracts/<str:contract_id>/change/sign/",
        contracts.contract_change_sign,
        name="contract-change-sign",
    ),
    path(
        "contracts/<str:contract_id>/terminate/",
        contracts.contract_terminate,
        name="contract-terminate",
    ),
    path("claims/<str:complaint_id>/", claims.claim_detail, name="claim"),
    path("claims/<str:complaint_id>/draft/", claims.claim_draft, name="claim-draft"),
    path("claims/<str:complaint_id>/documents/", claims.claim_documents, name="claim-documents"),
    path(
        "claims/<str:complaint_id>/documents/<str:document_id>/<str:key>/",
        claims.claim_document_download,
        name="claim-document-download",
    ),
    path("claims/<str:complaint_id>/answer/", claims.claim_answer, name="claim-answer"),
    path("claims/<str:complaint_id>/decision/", claims.claim_decision, name="claim-decision"),
    path("claims/<str:complaint_id>/cancel/", claims.claim_cancel, name="claim-cancel"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("dashboard/join/", views.join, name="join"),
    path("dashboard/join/withdraw/", views.withdraw_request, name="join-withdraw"),
    path("organization/", members.members, name="members"),
    path("organization/invitations/", members.invite, name="invite"),
    path(
        "organization/invitations/<int:invitation_id>/revoke/",
        members.revoke_invitation,
        name="invitation-revoke",
    ),
    path("organization/requests/<int:request_id>/", members.decide_request, name="join-decide"),
    path("organization/members/<int:user_id>/", members.member_action, name="member"),
    path("organization/leave/", members.leave, name="leave"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/confirm/", accounts.resend_confirmation, name="confirm-email-again"),
    path("accounts/confirm/<str:token>/", accounts.confirm_email, name="confirm-email"),
    path("accounts/invitations/<str:token>/", accounts.invitation, name="invitation"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path(f"api/{settings.API_VERSION}/", include("portal.api.urls")),
    path("ds/", include("docservice.urls")),
    # Anything else under /api/ (or /ds/) is a JSON 404, never an HTML page.
    re_path(r"^(api|ds)/", api_views.not_found),
]

handler404 = "portal.views.page_not_found"
handler500 = "portal.views.server_error"
