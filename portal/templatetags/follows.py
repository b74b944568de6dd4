"""The follow box on the tender page (the tender's templates know nothing of the portal's
follows; they load this tag)."""

from django import template

from portal import follows

register = template.Library()


@register.inclusion_tag(follows.BOX, takes_context=True)
def follow_box(context, tender):
    return {"box": follows.box(context["request"], tender), "request": context["request"]}
